/**
 * Recall on real reports: scans each report of a corpus built by corpus.ts and checks the
 * indicators its source listed. Only listed indicators the prose really names count (a loose,
 * independent search: lower case, common defangs undone, word edges); a miss is described by its
 * shape (kind, case, defang, table row, line after a block delimiter…) with the line it sits on.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { extractIocs } from "../../src/files/iocs/extract.ts";
import type { IocOptions } from "../../src/files/iocs/types.ts";
import type { CorpusManifest } from "./corpus.ts";
import { looseRefang, normal } from "./listed.ts";

const OPTIONS: IocOptions = {
  maxChars: 50_000_000,
  maxIndicators: 100_000,
  maxTokenChars: 4096,
  maxLocations: 1,
};

export interface Miss {
  report: string;
  kind: string;
  value: string;
  shape: string;
  line: string;
}

export interface SourceScore {
  source: string;
  repository: string;
  commit: string | null;
  licence: string;
  reports: number;
  listed: number;
  /** Listed indicators the prose names: the denominator of recall. */
  inProse: number;
  found: number;
  /** Per listed kind: [named in the prose, found]. */
  byKind: Record<string, [number, number]>;
  misses: Miss[];
  /** Indicators found that the source did not list, by kind (not all wrong: reports cite other hosts). */
  unlisted: Record<string, string[]>;
}

const EDGE_BEFORE = /[a-z0-9._-]/;
const EDGE_AFTER = /[a-z0-9_-]/;

/** Where `value` stands in `text` as a whole word (-1 when nowhere). */
function wordAt(text: string, value: string): number {
  for (let i = text.indexOf(value); i >= 0; i = text.indexOf(value, i + 1)) {
    const before = text[i - 1] ?? " ";
    const after = text[i + value.length] ?? " ";
    const next = text[i + value.length + 1] ?? " ";
    const continues = EDGE_AFTER.test(after) || (after === "." && /[a-z0-9]/.test(next));
    if (!EDGE_BEFORE.test(before) && !continues) return i;
  }
  return -1;
}

const DELIMITER = /^\s*(?:-{3,}|`{3,}\w*|\.{4,}|={4,}|\|={3,})\s*$/;

function shapeOf(kind: string, value: string, original: string, previous: string): string {
  const tags = [kind];
  if (/^[0-9a-f]+$/.test(value) && original.includes(value.toUpperCase())) tags.push("upper case");
  if (looseRefang(original) !== original) tags.push("defanged");
  if (value.endsWith(".onion")) tags.push("onion");
  if (/^\s*\|/.test(original)) tags.push("table row");
  if (original.includes("++")) tags.push("in ++passthrough++");
  if (original.includes("|") && !/^\s*\|/.test(original)) tags.push("beside a |");
  if (DELIMITER.test(previous)) tags.push("first line after a delimiter");
  return tags.join(", ");
}

function scoreReport(dir: string, r: CorpusManifest["reports"][number], score: SourceScore): void {
  const prose = readFileSync(path.join(dir, r.prose), "utf8");
  const loose = looseRefang(prose).toLowerCase();
  const found = new Map<string, string>();
  for (const i of extractIocs([{ part: "content", text: prose }], OPTIONS).indicators)
    found.set(normal(i.kind === "url" ? "url" : i.kind, i.value), i.kind);
  const lines = prose.split("\n");
  const listedValues = new Set(r.listed.map(([, v]) => v));
  for (const [kind, value] of r.listed) {
    score.listed++;
    const at = wordAt(loose, value);
    if (at < 0) continue;
    score.inProse++;
    const kindScore = score.byKind[kind] ?? [0, 0];
    score.byKind[kind] = kindScore;
    kindScore[0]++;
    if (found.has(value)) {
      score.found++;
      kindScore[1]++;
      continue;
    }
    const n = loose.slice(0, at).split("\n").length - 1;
    const line = lines[n] ?? "";
    const shape = shapeOf(kind, value, line, lines[n - 1] ?? "");
    score.misses.push({ report: r.id, kind, value, shape, line: line.trim().slice(0, 160) });
  }
  for (const [value, kind] of found) {
    if (listedValues.has(value)) continue;
    const unlisted = score.unlisted[kind] ?? [];
    unlisted.push(`${r.id}: ${value}`);
    score.unlisted[kind] = unlisted;
  }
}

export function scoreCorpus(corpusDir: string): SourceScore[] {
  const scores: SourceScore[] = [];
  for (const entry of readdirSync(corpusDir, { withFileTypes: true })) {
    const dir = path.join(corpusDir, entry.name);
    if (!entry.isDirectory() || !existsSync(path.join(dir, "manifest.json"))) continue;
    const m: CorpusManifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
    const score: SourceScore = {
      source: m.source,
      repository: m.repository,
      commit: m.commit,
      licence: m.licence,
      reports: m.reports.length,
      listed: 0,
      inProse: 0,
      found: 0,
      byKind: {},
      misses: [],
      unlisted: {},
    };
    for (const r of m.reports) scoreReport(dir, r, score);
    scores.push(score);
  }
  if (scores.length === 0)
    throw new Error(`${corpusDir} holds no corpus (build one with bench/iocs/corpus.ts)`);
  return scores;
}
