/**
 * The YARA worker pool and the deadlines of one task: the compile budget starts when the worker
 * starts compiling and the scan budget when it starts scanning (not while the task waits in line);
 * the scan deadline covers the whole task. A task past a budget is stopped by terminating its
 * worker: YARA-X's own timeout does not interrupt its WebAssembly build (a loop ran on 30 s past
 * a 1 s `setTimeoutMs`). A worker that faulted exits by itself; the pool counts it and starts a fresh one.
 */
import { Piscina } from "piscina";
import { workerExecArgv } from "../../../common/worker-threads.ts";
import { ProcessorFailure } from "../processor.ts";
import { faultOf, newStatus, PHASE, type Phase, phaseLeft, phaseOf } from "./status.ts";
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
  /** Tasks run again because the thread given them was ending after a large scan. */
  rerun = 0;
  lastRetirement: Retirement | undefined;

  private readonly options: PoolOptions;

  constructor(options: PoolOptions) {
    this.options = options;
    this.pool = new Piscina<ScanTask, TaskResult | ValidateResult>({
      filename: new URL("./worker.ts", import.meta.url).href,
      execArgv: workerExecArgv(),
      minThreads: options.minThreads,
      maxThreads: options.maxThreads,
      idleTimeout: options.idleMs,
      // A worker holding a cached rule set may grow; recycle it rather than keep a bloated heap.
      resourceLimits: { maxOldGenerationSizeMb: 2048 },
      // An idle thread keeps its event loop turning (not blocked in Atomics.wait): its timers run
      // (the read buffer is dropped after 10 s, input.ts) and it can end itself after a large scan.
      atomics: "async",
    });
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /**
   * Compiles and scans; failures of the engine or its deadlines become ProcessorFailure. The scan
   * itself may run `scanBudgetMs` (FILES_SCAN_TIMEOUT_MS when not given).
   */
  async scan(
    task: Omit<ScanTask, "status" | "kind">,
    clientGone: AbortSignal,
    scanBudgetMs?: number,
  ): Promise<TaskResult> {
    return (await this.run({ ...task, kind: "scan" }, clientGone, scanBudgetMs)) as TaskResult;
  }

  /** Compiles and reads the rule catalogue (no scan). */
  async validate(task: Omit<ScanTask, "status" | "kind">, clientGone: AbortSignal): Promise<ValidateResult> {
    return (await this.run({ ...task, kind: "validate" }, clientGone)) as ValidateResult;
  }

  private async run(
    task: Omit<ScanTask, "status">,
    clientGone: AbortSignal,
    scanBudgetMs = this.options.scanTimeoutMs,
  ): Promise<TaskResult | ValidateResult> {
    const status = newStatus();
    const deadline = AbortSignal.timeout(this.options.scanTimeoutMs);
    const compile = new AbortController();
    const scan = new AbortController();
    const stopCompile = watchPhase(
      status,
      [PHASE.queued],
      PHASE.compiling,
      this.options.compileTimeoutMs,
      compile,
    );
    const stopScan = watchPhase(status, [PHASE.queued, PHASE.compiling], PHASE.scanning, scanBudgetMs, scan);
    try {
      const signal = AbortSignal.any([deadline, clientGone, compile.signal, scan.signal]);
      return await this.pool.run({ ...task, status }, { signal }).catch((err: unknown) => {
        // Handed to a thread that was ending after a large scan (worker.ts): it never began, run it again.
        if (phaseOf(status) !== PHASE.queued || !isRecycledThread(err)) throw err;
        this.rerun++;
        return this.pool.run({ ...task, status }, { signal });
      });
    } catch (err) {
      throw this.failure(err, status, {
        deadline,
        clientGone,
        compile: compile.signal,
        scan: scan.signal,
        scanBudgetMs,
      });
    } finally {
      stopCompile();
      stopScan();
    }
  }

  private failure(
    err: unknown,
    status: SharedArrayBuffer,
    signals: {
      deadline: AbortSignal;
      clientGone: AbortSignal;
      compile: AbortSignal;
      scan: AbortSignal;
      scanBudgetMs: number;
    },
  ): ProcessorFailure {
    if (signals.compile.aborted) {
      return new ProcessorFailure(
        "timeout",
        `The YARA rules did not compile within ${this.options.compileTimeoutMs} ms (FILES_RULES_COMPILE_TIMEOUT_MS) and were stopped.`,
      );
    }
    if (signals.scan.aborted) return scanPastBudget(signals.scanBudgetMs);
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

/** Piscina's error for a task whose thread exited by itself, with code 0, before answering it. */
const isRecycledThread = (err: unknown) =>
  err instanceof Error && err.message === "worker exited with code: 0";

/** The answer for a scan stopped at its budget (both engines use it). */
export function scanPastBudget(budgetMs: number): ProcessorFailure {
  return new ProcessorFailure(
    "timeout",
    `The YARA scan did not finish within ${budgetMs} ms, its budget for this file ` +
      "(FILES_RULES_SCAN_BUDGET_MS plus FILES_RULES_SCAN_BUDGET_MS_PER_MB per MB, FILES_SCAN_TIMEOUT_MS at most), and was stopped.",
  );
}

/**
 * Aborts `budget` when the task is still in `phase` `ms` after it reached it (the phases in
 * `before` are waited out first: time in line is not counted). The returned function stops watching.
 */
function watchPhase(
  status: SharedArrayBuffer,
  before: Phase[],
  phase: Phase,
  ms: number,
  budget: AbortController,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  void (async () => {
    for (const earlier of before) {
      await phaseLeft(status, earlier);
      if (stopped) return;
    }
    if (phaseOf(status) !== phase) return;
    timer = setTimeout(() => {
      if (phaseOf(status) === phase) budget.abort();
    }, ms);
  })();
  return () => {
    stopped = true;
    clearTimeout(timer);
    // Wakes the waiter of a task that never left a phase (aborted before it got further).
    Atomics.notify(new Int32Array(status, 0, 2), 0);
  };
}
