/** What a rule scan reads: the upload's temp file, or its bytes when the upload was kept in memory. */
import { readFileSync } from "node:fs";

export type ScanInput = { path: string } | { bytes: Uint8Array };

/** The bytes to scan: the file read whole (YARA-X scans a buffer), or the bytes as they came. */
export function inputBytes(input: ScanInput): Uint8Array {
  return "bytes" in input ? input.bytes : readFileSync(input.path);
}
