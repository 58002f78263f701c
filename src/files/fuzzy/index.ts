/**
 * Fuzzy hashes (ssdeep, TLSH) for the processors that report hashes. Both are pure JavaScript
 * (ssdeep about 8–13 MB/s, TLSH 100 MB/s), so they run in a worker pool with a time limit, and a
 * file over FILES_FUZZY_MAX_BYTES is not fuzzy-hashed (the result says so) rather than holding a
 * worker for seconds.
 */
import { Piscina } from "piscina";
import { workerExecArgv } from "../../common/worker-threads.ts";
import type { FuzzyDigests, FuzzyTask } from "./worker.ts";

export interface FuzzyOptions {
  threads: number;
  minThreads: number;
  idleMs: number;
  timeoutMs: number;
  maxBytes: number;
}

export type FuzzyResult = (FuzzyDigests & { skipped?: undefined }) | { skipped: "too_large" | "timeout" };

export class FuzzyHasher {
  private readonly pool: Piscina<FuzzyTask, FuzzyDigests>;
  private readonly options: FuzzyOptions;

  constructor(options: FuzzyOptions) {
    this.options = options;
    this.pool = new Piscina<FuzzyTask, FuzzyDigests>({
      filename: new URL("./worker.ts", import.meta.url).href,
      execArgv: workerExecArgv(),
      minThreads: Math.min(options.minThreads, options.threads),
      maxThreads: options.threads,
      idleTimeout: options.idleMs,
    });
  }

  async hash(path: string, size: number, signal: AbortSignal): Promise<FuzzyResult> {
    if (size > this.options.maxBytes) return { skipped: "too_large" };
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    try {
      return await this.pool.run({ path }, { signal: AbortSignal.any([deadline, signal]) });
    } catch (err) {
      if (deadline.aborted) return { skipped: "timeout" };
      throw err;
    }
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
