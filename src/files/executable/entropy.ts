/** Section entropy, measured in worker threads after YARA-X named the sections. */
import { Piscina } from "piscina";
import { workerExecArgv } from "../../common/worker-threads.ts";
import type { EntropyTask } from "./entropy-worker.ts";
import type { Section } from "./facts.ts";

export interface EntropyOptions {
  threads: number;
  minThreads: number;
  idleMs: number;
}

export class EntropyMeter {
  private readonly pool: Piscina<EntropyTask, Array<number | null>>;

  constructor(options: EntropyOptions) {
    this.pool = new Piscina<EntropyTask, Array<number | null>>({
      filename: new URL("./entropy-worker.ts", import.meta.url).href,
      execArgv: workerExecArgv(),
      minThreads: Math.min(options.minThreads, options.threads),
      maxThreads: options.threads,
      idleTimeout: options.idleMs,
    });
  }

  /**
   * Sets `entropy` on the sections with bytes in the file (an offset and a size), in order, until
   * `budget` bytes were read: overlapping sections never make the file read many times over.
   */
  async measure(path: string, sections: Section[], budget: number, signal: AbortSignal): Promise<void> {
    const measured = sections.filter((s) => s.offset !== null && (s.size ?? 0) > 0);
    if (measured.length === 0) return;
    const ranges = measured.map((s) => ({ offset: s.offset ?? 0, size: s.size ?? 0 }));
    const values = await this.pool.run({ path, ranges, budget }, { signal });
    measured.forEach((s, n) => {
      const value = values[n];
      s.entropy = value === null || value === undefined ? null : Math.round(value * 1000) / 1000;
    });
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
