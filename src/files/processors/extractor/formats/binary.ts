/** Unknown binaries: printable ASCII runs of 4+ characters (like `strings`), capped. */
import type { Extracted } from "../result.ts";

export function printableStrings(bytes: Buffer, maxChars: number, minRun = 4): string {
  const out: string[] = [];
  let total = 0;
  let run = "";
  for (const b of bytes) {
    if (b >= 0x20 && b < 0x7f) {
      run += String.fromCharCode(b);
      continue;
    }
    if (run.length >= minRun) {
      out.push(run);
      total += run.length + 1;
      if (total > maxChars) break;
    }
    run = "";
  }
  if (run.length >= minRun) out.push(run);
  return out.join("\n");
}

export function extractBinary(bytes: Buffer, maxChars: number): Extracted {
  return { text: printableStrings(bytes, maxChars), extra: { binary: { strings_only: "true" } } };
}
