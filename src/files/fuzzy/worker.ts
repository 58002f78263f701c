/** Runs in a worker thread (piscina): the ssdeep and TLSH digests of one file, read once. */
import { readFileSync } from "node:fs";
import { Ssdeep } from "./ssdeep.ts";
import { tlshDigest } from "./tlsh.ts";

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
  return { ssdeep: new Ssdeep().update(bytes).digest(), tlsh: tlshDigest(bytes) };
}
