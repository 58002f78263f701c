/**
 * The YARA worker pool and the deadlines of one task: the compile budget starts when the worker
 * starts compiling (not while the task waits in line), the scan deadline covers the whole task.
 * A worker that faulted exits by itself; the pool counts it and starts a fresh one.
 */
import { Piscina } from "piscina";
import { ProcessorFailure } from "../processor.ts";
import { faultOf, newStatus, PHASE, phaseLeft, phaseOf } from "./status.ts";
import type { ScanTask, TaskResult, ValidateResult } from "./worker.ts";

export interface PoolOptions {
  minThreads: number;
  maxThreads: number;
  idleMs: number;
  scanTimeoutMs: number;
  compileTimeoutMs: number;
}

export interface Retirement {
  at: string;
  reason: string;
}

export class YaraPool {
  private readonly pool: Piscina<ScanTask, TaskResult | ValidateResult>;
  /** Workers retired after an engine fault since the start. */
  retired = 0;
  lastRetirement: Retirement | undefined;

  private readonly options: PoolOptions;

  constructor(options: PoolOptions) {
    this.options = options;
    this.pool = new Piscina<ScanTask, TaskResult | ValidateResult>({
      filename: new URL("./worker.ts", import.meta.url).href,
      minThreads: options.minThreads,
      maxThreads: options.maxThreads,
      idleTimeout: options.idleMs,
      // A worker holding a cached rule set may grow; recycle it rather than keep a bloated heap.
      resourceLimits: { maxOldGenerationSizeMb: 2048 },
    });
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /** Compiles and scans; failures of the engine or its deadlines become ProcessorFailure. */
  async scan(task: Omit<ScanTask, "status" | "kind">, clientGone: AbortSignal): Promise<TaskResult> {
    return (await this.run({ ...task, kind: "scan" }, clientGone)) as TaskResult;
  }

  /** Compiles and reads the rule catalogue (no scan). */
  async validate(task: Omit<ScanTask, "status" | "kind">, clientGone: AbortSignal): Promise<ValidateResult> {
    return (await this.run({ ...task, kind: "validate" }, clientGone)) as ValidateResult;
  }

  private async run(
    task: Omit<ScanTask, "status">,
    clientGone: AbortSignal,
  ): Promise<TaskResult | ValidateResult> {
    const status = newStatus();
    const deadline = AbortSignal.timeout(this.options.scanTimeoutMs);
    const compileBudget = new AbortController();
    const stopBudget = this.watchCompile(status, compileBudget);
    try {
      return await this.pool.run(
        { ...task, status },
        { signal: AbortSignal.any([deadline, clientGone, compileBudget.signal]) },
      );
    } catch (err) {
      throw this.failure(err, status, { deadline, clientGone, compile: compileBudget.signal });
    } finally {
      stopBudget();
    }
  }

  /** Aborts the task when it is still compiling `compileTimeoutMs` after it began to. */
  private watchCompile(status: SharedArrayBuffer, budget: AbortController): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    void phaseLeft(status, PHASE.queued).then(() => {
      if (stopped) return;
      timer = setTimeout(() => {
        if (phaseOf(status) === PHASE.compiling) budget.abort();
      }, this.options.compileTimeoutMs);
    });
    return () => {
      stopped = true;
      clearTimeout(timer);
      // Wakes the waiter of a task that never left the queue (aborted before it started).
      Atomics.notify(new Int32Array(status, 0, 2), 0);
    };
  }

  private failure(
    err: unknown,
    status: SharedArrayBuffer,
    signals: { deadline: AbortSignal; clientGone: AbortSignal; compile: AbortSignal },
  ): ProcessorFailure {
    if (signals.compile.aborted) {
      return new ProcessorFailure(
        "timeout",
        `The YARA rules did not compile within ${this.options.compileTimeoutMs} ms (RULES_COMPILE_TIMEOUT_MS) and were stopped.`,
      );
    }
    if (signals.deadline.aborted) {
      return new ProcessorFailure(
        "timeout",
        `The YARA scan did not finish within ${this.options.scanTimeoutMs} ms and was stopped.`,
      );
    }
    if (signals.clientGone.aborted) {
      return new ProcessorFailure("aborted", "The client went away; the scan was stopped.");
    }
    const reason = faultOf(status) ?? (err instanceof Error ? err.message : String(err));
    this.retired++;
    this.lastRetirement = { at: new Date().toISOString(), reason };
    return new ProcessorFailure(
      "engine_error",
      `YARA-X failed on these rules or this file (${reason}); its worker was replaced.`,
    );
  }

  destroy(): Promise<void> {
    return this.pool.destroy();
  }
}
