/**
 * The native YARA scan processes of a real files service, read from /proc: which run, and how
 * much CPU each used (a process whose ticks grow is scanning; one that sits still is idle).
 */
import { readdir, readFile } from "node:fs/promises";

/** The native scan processes the service started (its children running native/child.ts). */
export async function nativeChildren(serverPid: number): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8");
      if (ppid === serverPid && cmdline.includes("rulematch/native/child.ts")) found.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** CPU ticks a process has used (user + system), or null once it is gone. */
export async function cpuTicks(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** How many of the service's native scan processes used CPU during the next `ms`. */
export async function busyNativeChildren(serverPid: number, ms = 300): Promise<number> {
  const pids = await nativeChildren(serverPid);
  const before = await Promise.all(pids.map(cpuTicks));
  await new Promise((r) => setTimeout(r, ms));
  const after = await Promise.all(pids.map(cpuTicks));
  return pids.filter((_, i) => after[i] !== null && before[i] !== null && (after[i] ?? 0) > (before[i] ?? 0))
    .length;
}
