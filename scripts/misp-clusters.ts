/**
 * Builds src/intel/domain/export/misp-clusters.json from a local copy of MISP's galaxy clusters
 * (the misp-galaxy repository's clusters/*.json): for each galaxy Loupe emits, each cluster's value,
 * uuid and the names it is known by (its value and synonyms, folded as lookups fold them). Only
 * those facts are kept. Run: node scripts/misp-clusters.ts /path/to/misp-galaxy [commit]
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { foldClusterName } from "../src/intel/domain/export/misp-cluster-names.ts";

/** The galaxies the MISP export emits (misp-galaxies.ts) and their cluster files. */
const GALAXIES = ["malpedia", "threat-actor", "mitre-attack-pattern"] as const;

interface ClusterFile {
  values: Array<{ value: string; uuid: string; meta?: { synonyms?: string[]; external_id?: string } }>;
}

function clustersOf(file: ClusterFile): Record<string, [string, ...string[]]> {
  const out: Record<string, [string, ...string[]]> = {};
  for (const c of file.values) {
    const names = [
      c.value,
      ...(c.meta?.synonyms ?? []),
      ...(c.meta?.external_id ? [c.meta.external_id] : []),
    ];
    const folded = [...new Set(names.map(foldClusterName).filter(Boolean))].sort();
    out[c.value] = [c.uuid, ...folded];
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

function main(root: string | undefined, commit = "unknown"): void {
  if (!root) throw new Error("usage: node scripts/misp-clusters.ts /path/to/misp-galaxy [commit]");
  const galaxies = Object.fromEntries(
    GALAXIES.map((g) => [
      g,
      clustersOf(JSON.parse(readFileSync(path.join(root, "clusters", `${g}.json`), "utf8")) as ClusterFile),
    ]),
  );
  const out = {
    source: `MISP galaxy clusters (misp-galaxy repository, clusters/{${GALAXIES.join(",")}}.json) at commit ${commit}`,
    licence: "CC0-1.0 or BSD-2-Clause (misp-galaxy's LICENSE.md)",
    generated_by: "scripts/misp-clusters.ts",
    format: "galaxy → cluster value → [cluster uuid, folded names (value, synonyms, external id)…]",
    galaxies,
  };
  const target = path.join(import.meta.dirname, "../src/intel/domain/export/misp-clusters.json");
  writeFileSync(target, `${JSON.stringify(out)}\n`);
}

main(process.argv[2], process.argv[3]);
