/** Resident memory of a process, for the hostile runs and the benchmarks (Linux /proc). */
import { readFileSync } from "node:fs";

/** Resident and peak resident memory of a process, in MB. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
