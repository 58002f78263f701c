/** What a rule scan reads: the upload's temp file, or its bytes when the upload was kept in memory. */
import { readWhole } from "../../sandbox/read-whole.ts";

export type ScanInput = { path: string } | { bytes: Uint8Array };

/**
 * The bytes to scan: the file read whole into the thread's reused buffer (YARA-X scans a buffer), or the bytes as they came — a
 * plain Uint8Array once they crossed a thread or process, seen again as a Buffer (no copy).
 */
export function inputBytes(input: ScanInput): Buffer {
  if (!("bytes" in input)) return readWhole(input.path);
  const { bytes } = input;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
