/**
 * Extracts one file (or archive entry): its type is found once from the magic bytes, then the
 * first row of the format table (formats/table.ts) that recognises it does the work.
 */
import { fileTypeFromBuffer } from "file-type";
import type { Limits } from "./budget.ts";
import { formatOf } from "./formats/table.ts";
import type { Typed } from "./result.ts";

/**
 * Extracts one file (or archive entry) and charges its text to the budget. An archive's text is
 * made of its entries' texts, each charged already, so it is passed on as it is.
 */
export async function extractBytes(
  bytes: Buffer,
  name: string,
  depth: number,
  limits: Limits,
): Promise<Typed> {
  const mime = (await fileTypeFromBuffer(bytes))?.mime as string | undefined;
  const recurse = (b: Buffer, n: string, d: number) => extractBytes(b, n, d, limits);
  const input = { bytes, name, mime, depth, limits, recurse };
  const out = await formatOf(input).extract(input);
  return out.extra.archive ? out : { ...out, text: limits.budget.takeText(out.text) };
}
