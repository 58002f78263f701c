/**
 * What a sandbox process really holds: its resident set, read from /proc (V8's heap limit
 * misses WASM memories, Buffers and native libraries), and the RLIMIT_DATA ceiling that stops a
 * burst between two readings. RLIMIT_AS cannot be used: V8 and every WASM instance reserve
 * gigabytes of address space they never touch.
 */
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import path from "node:path";

const STATUS_BYTES = 4096;

/**
 * Reads a process's resident memory from /proc/<pid>/status through one descriptor kept open for
 * the process's life: each reading is a single `pread` at offset 0 (procfs renders the file anew),
 * synchronous and in memory, where an async `readFile` took five trips through the libuv pool
 * (open, fstat, read, read, close) after every sandbox job.
 */
export class ResidentMemory {
  #fd: number | null;
  readonly #buffer = Buffer.alloc(STATUS_BYTES);

  constructor(pid: number) {
    try {
      this.#fd = openSync(`/proc/${pid}/status`, "r");
    } catch {
      this.#fd = null;
    }
  }

  /** Resident bytes now, or null once the process is gone (or where /proc is missing). */
  bytes(): number | null {
    if (this.#fd === null) return null;
    try {
      const n = readSync(this.#fd, this.#buffer, 0, STATUS_BYTES, 0);
      const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(this.#buffer.toString("latin1", 0, n))?.[1];
      return kb ? Number(kb) * 1024 : null;
    } catch {
      return null;
    }
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
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
  return findProgram("prlimit");
}

/** A program's path on PATH, or null where it is not installed. */
export function findProgram(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}
