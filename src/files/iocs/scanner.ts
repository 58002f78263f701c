/**
 * The indicator scan in a small worker pool: a scan is linear but 10 MB of text still takes about
 * a second, which must not stall the server's other requests; a scan past its time is stopped.
 */
import { Piscina } from "piscina";
import { workerExecArgv } from "../../common/worker-threads.ts";
import type { IocOptions, IocResult, TextPart } from "./types.ts";
import type { IocTask } from "./worker.ts";

export interface ScannerOptions {
  threads: number;
  minThreads: number;
  idleMs: number;
  timeoutMs: number;
}

export class IocScanTimeout extends Error {
  override name = "IocScanTimeout";
}

export class IocScanner {
  private readonly pool: Piscina<IocTask, IocResult>;
  private readonly timeoutMs: number;

  constructor(options: ScannerOptions) {
    this.timeoutMs = options.timeoutMs;
    this.pool = new Piscina<IocTask, IocResult>({
      filename: new URL("./worker.ts", import.meta.url).href,
      execArgv: workerExecArgv(),
      minThreads: Math.min(options.minThreads, options.threads),
      maxThreads: options.threads,
      idleTimeout: options.idleMs,
    });
  }

  async scan(parts: TextPart[], options: IocOptions, signal: AbortSignal): Promise<IocResult> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      return await this.pool.run({ parts, options }, { signal: AbortSignal.any([deadline, signal]) });
    } catch (err) {
      if (deadline.aborted)
        throw new IocScanTimeout(`The indicator scan did not finish within ${this.timeoutMs} ms.`);
      throw err;
    }
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
