/**
 * Output checks of `bench compare`: Loupe's thumbnails must keep the same pixels as the recorded
 * ones (hashes of decoded RGBA, so a faster PNG encoder that keeps pixels still passes), and
 * Loupe's YARA match lists must equal the peer's (yara-python) on every rule/sample pair.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { ROOT } from "../../src/common/config.ts";

export const EXPECTED_FILE = path.join(ROOT, "bench/compare/expected-thumbnails.json");

export async function pixelHash(png: Buffer): Promise<{ hash: string; width: number; height: number }> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const hash = createHash("sha256")
    .update(`${info.width}x${info.height}x${info.channels}:`)
    .update(data)
    .digest("hex");
  return { hash, width: info.width, height: info.height };
}

/** Compares the hashes of this run's thumbnails with the recorded ones; records them when there are none yet (or `record` is set). */
export function checkThumbnailHashes(actual: Record<string, string>, record: boolean): string[] {
  if (record || !existsSync(EXPECTED_FILE)) {
    writeFileSync(EXPECTED_FILE, `${JSON.stringify(actual, null, 2)}\n`);
    console.log(`recorded ${Object.keys(actual).length} thumbnail pixel hashes in ${EXPECTED_FILE}`);
    return [];
  }
  const expected = JSON.parse(readFileSync(EXPECTED_FILE, "utf8")) as Record<string, string>;
  const problems: string[] = [];
  for (const [key, hash] of Object.entries(actual)) {
    if (expected[key] === undefined) problems.push(`${key}: no recorded output (run with --record)`);
    else if (expected[key] !== hash) problems.push(`${key}: pixels differ from the recorded output`);
  }
  return problems;
}

interface MatchLike {
  rule: string;
  namespace?: string;
  strings?: Array<{ identifier: string; instances?: Array<{ offset: number; matched_length: number }> }>;
}

/** A match list reduced to what both engines must agree on: rule, string, offset, length; sorted. */
export function normalizeMatches(matches: MatchLike[]): string[] {
  return matches
    .flatMap((m) => {
      const hits = (m.strings ?? []).flatMap((s) =>
        (s.instances ?? []).map((i) => `${m.rule} ${s.identifier} @${i.offset}+${i.matched_length}`),
      );
      return [`${m.rule}`, ...hits];
    })
    .sort();
}

export function matchesOf(body: unknown, processor: string): MatchLike[] {
  const b = body as { processors?: Record<string, { analysis?: { matches?: MatchLike[] } }> };
  const matches = b.processors?.[processor]?.analysis?.matches;
  if (!matches)
    throw new Error(`no ${processor} matches in the answer: ${JSON.stringify(body).slice(0, 300)}`);
  return matches;
}
