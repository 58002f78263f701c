/**
 * What a sandbox process really holds: its resident set, read from /proc (V8's heap limit
 * misses WASM memories, Buffers and native libraries), and the RLIMIT_DATA ceiling that stops a
 * burst between two readings. RLIMIT_AS cannot be used: V8 and every WASM instance reserve
 * gigabytes of address space they never touch.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";

/** Resident memory of a process in bytes, or null once it is gone. */
export async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Writable memory Node maps at start without using it (V8's code range and heap reservations,
 * measured at about 575 MB on Node 24, and about 25 MB more per WASM instance): the data limit
 * sits this far above the resident limit, so it only catches what the watchdog could miss.
 */
export const DATA_LIMIT_HEADROOM_MB = 1024;

/** The `prlimit` program (util-linux), or null where it is missing (the watchdog still holds). */
export function findPrlimit(): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "prlimit");
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}
