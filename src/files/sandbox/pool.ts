/**
 * A small pool of sandbox processes for one kind of job (a module whose default export takes a
 * task and returns a result). Processes are started on demand up to `size`, kept warm down to
 * `minIdle`, stopped after `idleMs` unused, and replaced after any failure: a job that kills its
 * process costs that one job. A process that kept much memory after a job is retired too.
 */
import { type ProcessLimits, SandboxFailure, SandboxProcess } from "./process.ts";

export { SandboxFailure } from "./process.ts";

export interface PoolOptions extends ProcessLimits {
  size: number;
  minIdle: number;
  idleMs: number;
}

interface Waiter {
  give(proc: SandboxProcess): void;
  fail(err: unknown): void;
}

/** After a job, a process holding more than this share of its memory limit is not reused. */
const RETIRE_SHARE = 0.5;
const MB = 1024 * 1024;

export class SandboxPool<Task, Result> {
  #all = new Set<SandboxProcess>();
  #idle: SandboxProcess[] = [];
  #idleTimers = new Map<SandboxProcess, NodeJS.Timeout>();
  #waiters: Waiter[] = [];
  #closed = false;
  /** The last failure, with when: health shows it. */
  lastFailure: { at: string; kind: string; message: string } | null = null;
  /** Why the last process to start did not (cleared when one starts): the pool cannot work. */
  startFailure: string | null = null;

  readonly options: PoolOptions;

  constructor(options: PoolOptions) {
    this.options = options;
    this.#keepWarm();
  }

  get started(): number {
    return this.#all.size;
  }

  /** Runs one job in a process, within `timeoutMs` once it started (the pool's limit when not given). */
  async run(task: Task, signal: AbortSignal, timeoutMs?: number): Promise<Result> {
    const proc = await this.#acquire(signal);
    try {
      return (await proc.run(task, signal, timeoutMs)) as Result;
    } catch (err) {
      if (err instanceof SandboxFailure && err.kind !== "aborted")
        this.lastFailure = { at: new Date().toISOString(), kind: err.kind, message: err.message };
      throw err;
    } finally {
      this.#release(proc);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#idleTimers.values()) clearTimeout(timer);
    const exits = [...this.#all].map(
      (p) => new Promise((r) => (p.exited ? r(null) : p.child.once("exit", r))),
    );
    for (const p of this.#all) p.kill();
    await Promise.all(exits);
  }

  async #acquire(signal: AbortSignal): Promise<SandboxProcess> {
    signal.throwIfAborted();
    const idle = this.#idle.pop();
    if (idle?.alive) {
      clearTimeout(this.#idleTimers.get(idle));
      this.#idleTimers.delete(idle);
      return idle;
    }
    if (this.#all.size < this.options.size) {
      const proc = this.#start();
      await proc.ready;
      return proc;
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        give: (proc) => {
          signal.removeEventListener("abort", onAbort);
          resolve(proc);
        },
        fail: (err) => {
          signal.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #release(proc: SandboxProcess): void {
    if (proc.alive) {
      const rss = proc.residentBytes();
      if (rss !== null && rss > this.options.memoryMb * MB * RETIRE_SHARE) proc.kill();
    }
    if (!proc.alive || this.#closed) return; // its exit hands its place to a waiter
    const waiter = this.#waiters.shift();
    if (waiter) {
      waiter.give(proc);
      return;
    }
    this.#idle.push(proc);
    this.#idleTimers.set(
      proc,
      setTimeout(() => {
        if (this.#all.size <= this.options.minIdle) return;
        this.#idle = this.#idle.filter((p) => p !== proc);
        proc.kill();
      }, this.options.idleMs).unref(),
    );
  }

  #start(): SandboxProcess {
    const proc = new SandboxProcess(this.options, (gone) => this.#forget(gone));
    // The caller that waits on it sees the failure; a process that never started is forgotten.
    proc.ready.then(
      () => {
        this.startFailure = null;
      },
      (err: unknown) => {
        this.startFailure = err instanceof Error ? err.message : String(err);
        this.#all.delete(proc);
      },
    );
    this.#all.add(proc);
    return proc;
  }

  /** A process ended (killed, crashed or stopped for idling): the next waiter gets a fresh one. */
  #forget(proc: SandboxProcess): void {
    this.#all.delete(proc);
    this.#idle = this.#idle.filter((p) => p !== proc);
    clearTimeout(this.#idleTimers.get(proc));
    this.#idleTimers.delete(proc);
    if (this.#closed) return;
    const waiter = this.#waiters.shift();
    if (waiter) {
      const fresh = this.#start();
      fresh.ready.then(
        () => waiter.give(fresh),
        (err) => waiter.fail(err),
      );
    } else if (proc.started) {
      // One that never started would fail again at once: the next job retries, no loop of restarts.
      this.#keepWarm();
    }
  }

  /** Starts processes until `minIdle` exist, so the next job does not wait for Node to boot. */
  #keepWarm(): void {
    while (!this.#closed && this.#all.size < Math.min(this.options.minIdle, this.options.size)) {
      const proc = this.#start();
      proc.ready.then(
        () => this.#release(proc),
        () => undefined,
      );
    }
  }
}
