/**
 * Hostile inputs for the extractor, generated in code (no blob over 1 MB in the repo): archive
 * bombs, self-referencing archives, text that fools encoding detection, parser-exhausting
 * documents. Each case names the bound it must be answered within.
 */

import { zipSync } from "fflate";

export interface ExtractCase {
  name: string;
  filename: string;
  bytes: () => Buffer;
  /** What a safe answer looks like: a partial result that says why, or an entry error with one of these codes. */
  expect: { partial?: true; errors?: string[] };
}

const MiB = 1024 * 1024;

/** A zip holding `width` copies of an inner zip, each holding one file of `innerMiB` MiB of zero bytes. */
export function zipOfZips(width: number, innerMiB: number): Buffer {
  const inner = zipSync({ "zeros.bin": new Uint8Array(innerMiB * MiB) }, { level: 9 });
  const outer: Record<string, Uint8Array> = {};
  for (let i = 0; i < width; i++) outer[`inner-${i}.zip`] = inner;
  return Buffer.from(zipSync(outer, { level: 9 }));
}

export const extractCases: ExtractCase[] = [
  {
    name: "zip of 6 zips, each one 100 MiB file of zero bytes (the 3 KB process killer)",
    filename: "bomb.zip",
    bytes: () => zipOfZips(6, 100),
    expect: { partial: true, errors: ["resource_limit"] },
  },
];
