/**
 * Runs in a worker thread (piscina): decodes one BMP with bmp-ts, which is plain JavaScript and
 * would otherwise hold the event loop for seconds. The pixels are moved back, not copied (piscina
 * moves only a top-level value, so the size comes from the header the caller already read).
 */
import { readFileSync } from "node:fs";
import { move } from "piscina";
import { decodeBmp } from "./bmp.ts";

/** The uploaded file's path, or its bytes. */
export type BmpTask = string | Uint8Array;

/** RGBA pixels, width × height × 4 bytes. Throws on malformed data. */
export default function decodeTask(input: BmpTask): Uint8Array {
  const bytes = typeof input === "string" ? readFileSync(input) : Buffer.from(input);
  return move(decodeBmp(bytes).data) as Uint8Array;
}
