/** What a rule scan reads: the upload's temp file, or its bytes when the upload was kept in memory. */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

export type ScanInput = { path: string } | { bytes: Uint8Array };

/**
 * Files are read into one buffer kept by this thread (or process) between scans, then dropped after
 * DROP_AFTER_MS without one: a fresh buffer per file costs a page fault per 4 KB on first touch, which
 * made reading a 100 MB temp file back take 49–351 ms here against 20–25 ms into memory already
 * touched (docs/benchmarks.md). A scan reads its bytes synchronously, so one buffer is never shared.
 */
let scratch: Buffer | undefined;
let dropTimer: NodeJS.Timeout | undefined;
const DROP_AFTER_MS = 10_000;

/**
 * The bytes to scan: the file read whole (YARA-X scans a buffer), or the bytes as they came — a
 * plain Uint8Array once they crossed a thread or process, seen again as a Buffer (no copy).
 */
export function inputBytes(input: ScanInput): Buffer {
  if (!("bytes" in input)) return readWhole(input.path);
  const { bytes } = input;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The file's bytes, valid until the next call (the buffer is reused). */
function readWhole(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
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
