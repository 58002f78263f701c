/** Small measuring tools shared by the benchmarks: timed concurrent runs, percentiles, RSS sampling. */
import { readFileSync } from "node:fs";

export interface RunStats {
  count: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Runs `task` `total` times with `concurrency` in flight; latencies in ms. */
export async function runConcurrent(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<RunStats> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      try {
        await task(i);
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { count: total, seconds, perSecond: total / seconds, ...percentiles(latencies), errors };
}

export function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

// Shared with the hostile runs in test/ (benchmarks may use test helpers, never the reverse).
export { fmt, memoryOf } from "../../test/helpers/process-memory.ts";

export function printTable(rows: Array<Record<string, string | number>>): void {
  console.table(rows);
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux; 10 ms ticks). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
