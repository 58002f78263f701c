/**
 * A small pool of sandbox processes for one kind of job (a module whose default export takes a
 * task and returns a result). Processes are started on demand up to `size`, `minIdle` kept idle
 * and ready (a killed one is replaced at once when the others are busy), stopped after `idleMs` unused, and replaced after any failure: a job that kills its
 * process costs that one job. A process that kept much memory after a job is retired too.
 * A watchdog checks the bookkeeping every second: a process neither running, idle nor starting
 * is lost (nothing would ever hand it a job) and is replaced; health reports each recovery.
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

export interface PoolHealth {
  busy: number;
  idle: number;
  starting: number;
  waiting: number;
  /** Processes the watchdog replaced (lost by the bookkeeping) since the start, and the last time. */
  recovered: number;
  lastRecovery: { at: string; detail: string } | null;
}

/** " (1 busy, 1 idle, 0 starting, 0 waiting)": what a pool's processes do now, for health. */
export function poolState(health: PoolHealth | undefined): string {
  if (!health) return "";
  return ` (${health.busy} busy, ${health.idle} idle, ${health.starting} starting, ${health.waiting} waiting)`;
}

/** What a pool's watchdog found and replaced, if anything, for health. */
export function poolRecoveries(health: PoolHealth | undefined): string {
  if (!health?.lastRecovery) return "";
  const { at, detail } = health.lastRecovery;
  return `; the watchdog replaced ${health.recovered} stuck process(es), last at ${at}: ${detail}`;
}

/** How often the watchdog looks (a lost process is found within this, whatever the traffic). */
const WATCHDOG_MS = 1000;
/** A process killed this long ago and still not reported gone is forgotten (its slot freed). */
const EXIT_GRACE_MS = 5000;
/** After a job, a process holding more than this share of its memory limit is not reused. */
const RETIRE_SHARE = 0.5;
const MB = 1024 * 1024;

export class SandboxPool<Task, Result> {
  #all = new Set<SandboxProcess>();
  #idle: SandboxProcess[] = [];
  #busy = new Set<SandboxProcess>();
  #recovered = 0;
  #lastRecovery: PoolHealth["lastRecovery"] = null;
  readonly #watchdog: NodeJS.Timeout;
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
    this.#watchdog = setInterval(() => this.#audit(), WATCHDOG_MS).unref();
  }

  health(): PoolHealth {
    const all = [...this.#all];
    return {
      busy: this.#busy.size,
      idle: this.#idle.length,
      starting: all.filter((p) => !p.started).length,
      waiting: this.#waiters.length,
      recovered: this.#recovered,
      lastRecovery: this.#lastRecovery,
    };
  }

  get started(): number {
    return this.#all.size;
  }

  /**
   * Whether a job would start at once (an idle process is ready). When not, one process is started
   * for the next job if none is starting and `size` allows: a caller with another way to do the
   * job (the native YARA engine's WebAssembly build) uses it now instead of waiting for a boot.
   */
  readyNow(): boolean {
    if (this.#idle.some((p) => p.alive)) return true;
    const starting = [...this.#all].some((p) => !p.started);
    if (!this.#closed && !starting && this.#all.size < this.options.size) {
      const proc = this.#start();
      proc.ready.then(
        () => this.#release(proc),
        () => undefined,
      );
    }
    return false;
  }

  /** Runs one job in a process, within `timeoutMs` once it started (the pool's limit when not given). */
  async run(task: Task, signal: AbortSignal, timeoutMs?: number): Promise<Result> {
    const proc = await this.#acquire(signal);
    this.#busy.add(proc);
    try {
      return (await proc.run(task, signal, timeoutMs)) as Result;
    } catch (err) {
      if (err instanceof SandboxFailure && err.kind !== "aborted")
        this.lastFailure = { at: new Date().toISOString(), kind: err.kind, message: err.message };
      throw err;
    } finally {
      this.#busy.delete(proc);
      this.#release(proc);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watchdog);
    for (const timer of this.#idleTimers.values()) clearTimeout(timer);
    const exits = [...this.#all].map(
      (p) => new Promise((r) => (p.exited ? r(null) : p.child.once("exit", r))),
    );
    for (const p of this.#all) p.kill();
    await Promise.all(exits);
  }

  async #acquire(signal: AbortSignal): Promise<SandboxProcess> {
    signal.throwIfAborted();
    for (let idle = this.#idle.pop(); idle; idle = this.#idle.pop()) {
      clearTimeout(this.#idleTimers.get(idle));
      this.#idleTimers.delete(idle);
      if (!idle.alive) continue; // one being killed is dropped: its exit frees its place
      this.#keepWarm(); // the next job finds a spare ready too
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
        if (this.#idle.length <= this.options.minIdle) return;
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
      (err: unknown) => this.#bootFailed(proc, err),
    );
    this.#all.add(proc);
    return proc;
  }

  /**
   * A process never started. When no other process is left or starting, nothing would ever
   * serve the waiting jobs: each is told why now (no fresh process is tried for them: it would
   * fail the same way).
   */
  #bootFailed(proc: SandboxProcess, err: unknown): void {
    this.startFailure = err instanceof Error ? err.message : String(err);
    this.#all.delete(proc);
    if (this.#all.size > 0) return;
    for (const waiter of this.#waiters.splice(0)) waiter.fail(err);
  }

  /**
   * A process ended (killed, crashed or stopped for idling): a fresh one is started when scans
   * wait, and goes to whichever waiter is first when it is ready. It is never promised to one
   * waiter while it boots: that waiter may leave meanwhile, and its process was then lost for
   * good (issue 27 M7: every slot lost that way, the pool wedged with its processes idle).
   */
  #forget(proc: SandboxProcess): void {
    this.#all.delete(proc);
    this.#busy.delete(proc);
    this.#idle = this.#idle.filter((p) => p !== proc);
    clearTimeout(this.#idleTimers.get(proc));
    this.#idleTimers.delete(proc);
    // One that never started would fail again at once: its boot failure tells the waiters, and
    // the next job retries (no loop of restarts).
    if (this.#closed || !proc.started) return;
    if (this.#waiters.length > 0) this.#startForWaiters();
    else this.#keepWarm();
  }

  #startForWaiters(): void {
    const fresh = this.#start();
    fresh.ready.then(
      () => this.#release(fresh),
      () => undefined, // #bootFailed tells the waiters
    );
  }

  /**
   * The watchdog's round: idle processes while jobs wait are handed over; a live process that is
   * neither running, idle nor starting is killed (its exit starts a fresh one for the waiters);
   * one killed long ago that never said it exited is forgotten. Each is counted for health.
   */
  #audit(): void {
    if (this.#closed) return;
    const found: string[] = [];
    while (this.#waiters.length > 0 && this.#idle.length > 0) {
      const proc = this.#idle.pop() as SandboxProcess;
      clearTimeout(this.#idleTimers.get(proc));
      this.#idleTimers.delete(proc);
      found.push(`process ${proc.child.pid} idle while ${this.#waiters.length} jobs waited`);
      this.#release(proc);
    }
    const now = Date.now();
    for (const proc of this.#all) {
      if (proc.alive && proc.started && !this.#busy.has(proc) && !this.#idle.includes(proc)) {
        found.push(`process ${proc.child.pid} was neither running, idle nor starting`);
        proc.kill();
      } else if (!proc.exited && proc.killedAt !== undefined && now - proc.killedAt > EXIT_GRACE_MS) {
        found.push(`process ${proc.child.pid} never reported its exit`);
        this.#forget(proc);
      }
    }
    if (found.length === 0) return;
    this.#recovered += found.length;
    this.#lastRecovery = { at: new Date().toISOString(), detail: found.join("; ") };
  }

  /**
   * Starts processes until `minIdle` are idle or starting (within `size`), so the next job does
   * not wait for Node to boot — also when the others are busy and one was just killed.
   */
  #keepWarm(): void {
    const ready = () => this.#idle.length + [...this.#all].filter((p) => !p.started).length;
    while (!this.#closed && this.#all.size < this.options.size && ready() < this.options.minIdle) {
      const proc = this.#start();
      proc.ready.then(
        () => this.#release(proc),
        () => undefined,
      );
    }
  }
}
