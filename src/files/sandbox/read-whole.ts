/**
 * A file read whole into one buffer kept by this thread (or process) between calls, dropped after
 * DROP_AFTER_MS without one. A fresh buffer per file costs a page fault per 4 KB on first touch
 * (docs/benchmarks.md: 49–351 ms against 20–25 ms to read 100 MB back). Rule scans and thumbnail
 * processes do one job at a time per thread, so the buffer is never shared.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

let scratch: Buffer | undefined;
let dropTimer: NodeJS.Timeout | undefined;
const DROP_AFTER_MS = 10_000;

/**
 * The file's bytes, valid until the next call on this thread (the buffer is reused); undefined
 * when the file is larger than `maxBytes`.
 */
export function readWhole(path: string): Buffer;
export function readWhole(path: string, maxBytes: number): Buffer | undefined;
export function readWhole(path: string, maxBytes = Number.POSITIVE_INFINITY): Buffer | undefined {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) return undefined;
    if (!scratch || scratch.length < size) scratch = Buffer.allocUnsafeSlow(size);
    let filled = 0;
    while (filled < size) {
      const n = readSync(fd, scratch, filled, size - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    clearTimeout(dropTimer);
    dropTimer = setTimeout(() => {
      scratch = undefined;
    }, DROP_AFTER_MS).unref();
    return scratch.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}
