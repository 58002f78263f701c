/**
 * Builds the real-report corpus from a fetched snapshot of a public IOC repository:
 *   node bench/iocs/corpus.ts SOURCE SNAPSHOT OUT_DIR      (SOURCE: eset, avast)
 * writes OUT_DIR/SOURCE/ (reports' prose, their listed indicators, the licence and the commit read).
 * Nothing fetched may enter this repository, so OUT_DIR must lie outside it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";
import { openSnapshot } from "./snapshot.ts";
import { reportsOf, SOURCES } from "./sources.ts";

export interface CorpusManifest {
  source: string;
  repository: string;
  commit: string | null;
  licence: string;
  licenceFile: string;
  built: string;
  reports: Array<{ id: string; prose: string; listed: Array<[string, string]>; from: string[] }>;
}

function main(args: string[]): void {
  const [name = "", snapshotDir = "", outDir = ""] = args;
  const source = SOURCES[name];
  if (!source || !snapshotDir || !outDir) {
    console.error(`usage: node bench/iocs/corpus.ts (${Object.keys(SOURCES).join("|")}) SNAPSHOT OUT_DIR`);
    process.exit(2);
  }
  const out = path.resolve(outDir, source.name);
  if (!path.relative(ROOT, out).startsWith("..")) {
    console.error(`${out} is inside the repository: the corpus must stay outside it`);
    process.exit(2);
  }
  const snapshot = openSnapshot(snapshotDir);
  const reports = reportsOf(source, snapshot);
  mkdirSync(path.join(out, "reports"), { recursive: true });
  const manifest: CorpusManifest = {
    source: source.name,
    repository: source.repository,
    commit: snapshot.commit,
    licence: source.licence,
    licenceFile: source.licenceFile,
    built: new Date().toISOString(),
    reports: [],
  };
  for (const r of reports) {
    const prose = `reports/${r.id}.${r.ext}`;
    writeFileSync(path.join(out, prose), r.prose);
    manifest.reports.push({ id: r.id, prose, listed: dedupe(r.listed), from: r.from });
  }
  writeFileSync(path.join(out, source.licenceFile), snapshot.read(source.licenceFile) ?? source.licence);
  writeFileSync(path.join(out, "manifest.json"), `${JSON.stringify(manifest, null, 1)}\n`);
  const listed = manifest.reports.reduce((n, r) => n + r.listed.length, 0);
  console.log(`${source.name}: ${manifest.reports.length} reports, ${listed} listed indicators → ${out}`);
}

function dedupe(listed: Array<[string, string]>): Array<[string, string]> {
  const seen = new Map(listed.map(([k, v]) => [`${k} ${v}`, [k, v] as [string, string]]));
  return [...seen.values()];
}

if (import.meta.main) main(process.argv.slice(2));
