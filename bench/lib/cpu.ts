/** CPU time of processes (Linux /proc): a load-independent cost per request for the benchmarks. */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far (0 when it is gone). */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start past its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU seconds used by `pids` together while `run` runs. */
export async function cpuDuring<T>(
  pids: () => number[] | Promise<number[]>,
  run: () => Promise<T>,
): Promise<{ result: T; cpuSeconds: number }> {
  const before = new Map((await pids()).map((p) => [p, cpuSecondsOf(p)]));
  const result = await run();
  let cpuSeconds = 0;
  for (const p of new Set([...before.keys(), ...(await pids())])) {
    const now = cpuSecondsOf(p);
    if (now > 0) cpuSeconds += now - (before.get(p) ?? 0); // a process gone meanwhile is not counted
  }
  return { result, cpuSeconds };
}

/** The machine's load averages (1, 5, 15 min): printed beside every figure on a shared machine. */
export function loadavg(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}
