/**
 * One sandbox process: a Node child with a heap limit, a data-size rlimit and a resident-memory
 * watchdog, running one job at a time under a time limit. Whatever goes wrong inside (a heap
 * exhausted, a WASM abort, a parser stuck in a loop), the job ends with a `SandboxFailure` and
 * the process is killed with its process group; the caller's process is never touched.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { DATA_LIMIT_HEADROOM_MB, ResidentMemory } from "./memory.ts";

export type FailureKind = "timeout" | "resource_limit" | "engine_error" | "aborted";

export class SandboxFailure extends Error {
  override name = "SandboxFailure";
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface ProcessLimits {
  /** Used in messages: "Extraction needed more than …". */
  label: string;
  module: URL;
  memoryMb: number;
  timeoutMs: number;
  /** `prlimit` to set RLIMIT_DATA with, or null. */
  prlimit: string | null;
}

interface Reply {
  id?: number;
  ready?: true;
  ok?: boolean;
  value?: unknown;
  error?: string;
}

interface RunningJob {
  id: number;
  settle(outcome: { value: unknown } | { error: SandboxFailure }): void;
}

const CHILD = new URL("./child.ts", import.meta.url).pathname;
const POLL_MS = 100;
const STDERR_TAIL = 8192;
const MB = 1024 * 1024;
/** How a process that ran out of memory by itself says so (V8, the allocator, 7-Zip's WASM). */
const OUT_OF_MEMORY =
  /out of memory|heap limit|allocation failed|Failed to allocate|Cannot allocate|bad_alloc|ENOMEM|Invalid string length|Invalid array length/i;

export class SandboxProcess {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  #stderr = "";
  #job: RunningJob | undefined;
  #stoppedFor: SandboxFailure | undefined;
  #jobs = 0;
  #killed = false;
  exited = false;
  /** When it was told to die (Date.now()), if it was. */
  killedAt: number | undefined;
  /** It answered "ready" once (a process that dies before is not restarted for warmth). */
  started = false;

  readonly limits: ProcessLimits;

  readonly #memory: ResidentMemory;

  constructor(limits: ProcessLimits, onExit: (proc: SandboxProcess) => void) {
    this.limits = limits;
    this.child = spawnChild(limits);
    this.#memory = new ResidentMemory(this.child.pid ?? 0);
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.once("message", (m: Reply) => (m.ready ? resolve() : reject(this.#died(null, null))));
      this.child.once("exit", (code, signal) => reject(this.#died(code, signal)));
      this.child.once("error", (err) => reject(new SandboxFailure("engine_error", err.message)));
    });
    this.ready.then(
      () => {
        this.started = true;
      },
      () => this.kill(),
    );
    this.child.on("message", (m: Reply) => this.#onReply(m));
    this.child.once("exit", (code, signal) => {
      this.exited = true;
      this.#memory.close();
      this.#job?.settle({ error: this.#stoppedFor ?? this.#died(code, signal) });
      onExit(this);
    });
  }

  /** Neither exited nor being killed: it may take a job. */
  get alive(): boolean {
    return !this.exited && !this.#killed;
  }

  /** Runs one job within `timeoutMs` (the pool's limit when not given); the process must be ready and idle. */
  run(task: unknown, signal: AbortSignal, timeoutMs = this.limits.timeoutMs): Promise<unknown> {
    const { label, memoryMb } = this.limits;
    return new Promise((resolve, reject) => {
      const stop = (failure: SandboxFailure) => {
        this.#stoppedFor ??= failure;
        this.kill();
      };
      const timer = setTimeout(
        () =>
          stop(
            new SandboxFailure("timeout", `${label} did not finish within ${timeoutMs} ms and was stopped.`),
          ),
        timeoutMs,
      );
      const watch = setInterval(() => {
        const rss = this.residentBytes();
        if (rss !== null && rss > memoryMb * MB) stop(this.#overMemory());
      }, POLL_MS);
      const onAbort = () => stop(new SandboxFailure("aborted", `${label} was abandoned by its caller.`));
      signal.addEventListener("abort", onAbort, { once: true });
      const id = ++this.#jobs;
      this.#job = {
        id,
        settle: (outcome) => {
          clearTimeout(timer);
          clearInterval(watch);
          signal.removeEventListener("abort", onAbort);
          this.#job = undefined;
          if ("error" in outcome) reject(outcome.error);
          else resolve(outcome.value);
        },
      };
      if (signal.aborted) onAbort();
      else this.child.send({ id, task });
    });
  }

  /** Its resident memory now, or null once it is gone. */
  residentBytes(): number | null {
    return this.exited ? null : this.#memory.bytes();
  }

  /** Ends the process and anything it started (its own process group). */
  kill(): void {
    if (this.exited || this.child.pid === undefined) return;
    this.#killed = true;
    this.killedAt ??= Date.now();
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      this.child.kill("SIGKILL");
    }
  }

  #onReply(m: Reply): void {
    const job = this.#job;
    if (m.ready || !job || m.id !== job.id) return;
    if (m.ok) job.settle({ value: m.value });
    else if (OUT_OF_MEMORY.test(m.error ?? "")) job.settle({ error: this.#overMemory() });
    else job.settle({ error: new SandboxFailure("engine_error", `${this.limits.label} failed: ${m.error}`) });
  }

  #overMemory(): SandboxFailure {
    const { label, memoryMb } = this.limits;
    return new SandboxFailure("resource_limit", `${label} needed more than ${memoryMb} MB and was stopped.`);
  }

  /** Why the process ended by itself: out of memory (as it said on stderr), or a crash. */
  #died(code: number | null, signal: NodeJS.Signals | null): SandboxFailure {
    if (OUT_OF_MEMORY.test(this.#stderr)) return this.#overMemory();
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const last = lastError(this.#stderr);
    return new SandboxFailure(
      "engine_error",
      `The ${this.limits.label.toLowerCase()} process ${how}${last ? `: ${last}` : ""}.`,
    );
  }
}

/** The line of a dying Node's stderr that says why: its last "…Error: …" line, else its last words. */
function lastError(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("at ") && !/^Node\.js v/.test(l));
  return lines.findLast((l) => /Error\b/.test(l)) ?? lines.at(-1) ?? "";
}

function spawnChild(limits: ProcessLimits): ChildProcess {
  const node = [
    "--disable-warning=ExperimentalWarning",
    `--max-old-space-size=${limits.memoryMb}`,
    CHILD,
    limits.module.href,
  ];
  const dataLimit = (limits.memoryMb + DATA_LIMIT_HEADROOM_MB) * MB;
  const [command, args] = limits.prlimit
    ? [limits.prlimit, [`--data=${dataLimit}`, "--", process.execPath, ...node]]
    : [process.execPath, node];
  // Its own process group: killing it also ends what it started (tesseract, pdftoppm).
  return spawn(command, args, {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    serialization: "advanced",
    detached: true,
  });
}
