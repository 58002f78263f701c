/** Runs in a worker thread (piscina): the ssdeep and TLSH digests of one file, read once. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ssdeep } from "./ssdeep.ts";

// The TLSH port is CommonJS and hashes a string of char codes: latin1 maps each byte to one.
const tlshOf = createRequire(import.meta.url)("tlsh") as (data: string) => string;

export interface FuzzyTask {
  path: string;
}

export interface FuzzyDigests {
  ssdeep: string;
  /** Null when the file is too short or too uniform for TLSH (it needs 50+ varied bytes). */
  tlsh: string | null;
}

export default function run(task: FuzzyTask): FuzzyDigests {
  const bytes = readFileSync(task.path);
  let tlsh: string | null = null;
  try {
    tlsh = tlshOf(bytes.toString("latin1"));
  } catch {
    tlsh = null;
  }
  return { ssdeep: new Ssdeep().update(bytes).digest(), tlsh };
}
