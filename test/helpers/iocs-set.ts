/**
 * The labelled indicator set (test/fixtures/iocs): each document is read by the real extractor
 * (its worker function, in-process) and scanned; precision and recall per kind and overall. Used by
 * the test that holds the targets and by `./loupe bench iocs`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";
import { extractIocs } from "../../src/files/iocs/extract.ts";
import { extractionParts } from "../../src/files/iocs/parts.ts";
import type { IocOptions } from "../../src/files/iocs/types.ts";
import run from "../../src/files/processors/extractor/worker.ts";

export const SET_DIR = path.join(ROOT, "test/fixtures/iocs");
const EXTRACT_LIMITS = {
  maxChars: 10_000_000,
  maxDepth: 3,
  maxArchiveBytes: 500_000_000,
  maxArchiveEntries: 10_000,
};
const OPTIONS: IocOptions = {
  maxChars: 10_000_000,
  maxIndicators: 5000,
  maxTokenChars: 4096,
  maxLocations: 20,
};

interface Labels {
  indicators: Array<[string, string]>;
  decoys: string[];
}

export interface Score {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
}

export interface SetResult {
  files: Array<{ file: string; type: string; found: number; falsePositives: string[]; missed: string[] }>;
  byKind: Record<string, Score>;
  overall: Score;
  labelled: number;
  decoys: number;
}

const score = (tp: number, fp: number, fn: number): Score => ({
  truePositives: tp,
  falsePositives: fp,
  falseNegatives: fn,
  precision: tp + fp === 0 ? 1 : tp / (tp + fp),
  recall: tp + fn === 0 ? 1 : tp / (tp + fn),
});

export async function scoreSet(): Promise<SetResult> {
  const labels: Record<string, Labels> = JSON.parse(readFileSync(path.join(SET_DIR, "labels.json"), "utf8"));
  const counts = new Map<string, [number, number, number]>();
  const bump = (kind: string, i: 0 | 1 | 2) => {
    const c = counts.get(kind) ?? [0, 0, 0];
    c[i]++;
    counts.set(kind, c);
  };
  const files: SetResult["files"] = [];
  let labelled = 0;
  let decoys = 0;
  for (const [file, label] of Object.entries(labels)) {
    const task = { path: path.join(SET_DIR, file), filename: file, limits: EXTRACT_LIMITS };
    const r = await run({ ...task, deadline: Date.now() + 60_000 });
    if (!r.ok) throw new Error(`${file}: ${r.error}`);
    const parts = extractionParts({ content: r.content, title: r.title, extra: r.extra });
    const found = new Set(extractIocs(parts, OPTIONS).indicators.map((i) => `${i.kind} ${i.value}`));
    const wanted = new Set(label.indicators.map(([kind, value]) => `${kind} ${value}`));
    for (const f of found) bump(f.split(" ")[0] ?? "", wanted.has(f) ? 0 : 1);
    for (const w of wanted) if (!found.has(w)) bump(w.split(" ")[0] ?? "", 2);
    labelled += wanted.size;
    decoys += label.decoys.length;
    files.push({
      file,
      type: r.type,
      found: found.size,
      falsePositives: [...found].filter((f) => !wanted.has(f)),
      missed: [...wanted].filter((w) => !found.has(w)),
    });
  }
  const byKind = Object.fromEntries([...counts].sort().map(([k, [tp, fp, fn]]) => [k, score(tp, fp, fn)]));
  const total = [...counts.values()].reduce((a, c) => [a[0] + c[0], a[1] + c[1], a[2] + c[2]], [0, 0, 0]);
  return { files, byKind, overall: score(total[0], total[1], total[2]), labelled, decoys };
}
