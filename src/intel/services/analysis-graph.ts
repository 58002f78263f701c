/**
 * An analysed file in the knowledge graph: an ARTIFACT/SAMPLE entity named by its sha256 (the
 * taxonomy's type for a file under analysis; the file name would join unrelated files), with its
 * hashes and name as attributes, "same file as" its hash observables, and each indicator found in
 * it "contained in" it — so an investigation of a domain shows the files it appeared in. Every
 * entity written is raised to the analysis' marking (sticky, like an ask's): an indicator found in
 * a RED file stays RED for later asks.
 */
import type { EntityRef, Fragment, Subject, Tlp } from "../connectors/types.ts";
import { type Marking, storedName, weakerThan } from "../domain/markings.ts";
import type { AnalysisRow } from "../store/analyses.ts";
import { findEntity, raiseMarking, saveFragment } from "../store/graph.ts";
import { bumpGraphVersion } from "../store/requests.ts";
import type { IntelServices } from "./index.ts";

type Services = Pick<IntelServices, "store" | "config" | "connectors" | "requests">;

/** The vendor name the graph records for what an analysis wrote (`source_vendor`). */
export const ANALYSIS_SOURCE = "loupe_analysis";

export const sampleRef = (row: Pick<AnalysisRow, "sha256">): EntityRef => ({
  superType: "ARTIFACT",
  type: "SAMPLE",
  name: row.sha256,
});

function fragmentOf(row: AnalysisRow, indicators: Subject[]): Fragment {
  const sample = sampleRef(row);
  const marks = { tlp: storedName(row.tlp as Marking) as Tlp, pap: storedName(row.pap as Marking) as Tlp };
  const hashes = (["md5", "sha1", "sha256"] as const).map((h) => ({
    superType: "OBSERVABLE",
    type: h.toUpperCase(),
    name: row[h],
  }));
  const found = indicators.map((s) => ({ superType: s.superType, type: s.type, name: s.value }));
  return {
    entities: [
      {
        ...sample,
        ...marks,
        description: `A file analysed by Loupe (${row.name})`,
        attributes: {
          file_name: row.name,
          size: String(row.size),
          md5: row.md5,
          sha1: row.sha1,
          sha256: row.sha256,
          analysis: row.id,
          ...(row.verdict ? { verdict: row.verdict } : {}),
        },
      },
      ...[...hashes, ...found].map((ref) => ({ ...ref, ...marks })),
    ],
    relations: [
      ...hashes.map((to) => ({ name: "same file as", from: sample, to })),
      ...found.map((from) => ({ name: "contained in", from, to: sample })),
    ],
    events: [],
  };
}

/** Writes the file, its hashes and its indicators to the graph, each raised to the analysis' marking. */
export async function linkAnalysis(
  services: Services,
  row: AnalysisRow,
  indicators: Subject[],
): Promise<void> {
  const { db } = services.store;
  const fragment = fragmentOf(row, indicators);
  await saveFragment(db, sampleRef(row), fragment, ANALYSIS_SOURCE);
  const tlp = row.tlp as Marking;
  const pap = row.pap as Marking;
  for (const ref of fragment.entities) {
    const entity = await findEntity(db, ref);
    if (!entity) continue;
    await raiseMarking(db, entity.id, "tlp", storedName(tlp), weakerThan(tlp));
    await raiseMarking(db, entity.id, "pap", storedName(pap), weakerThan(pap));
  }
  await bumpGraphVersion(db);
}
