/**
 * Where an analysed file is in the knowledge graph: its ARTIFACT/SAMPLE entity (analysis-graph.ts
 * writes it when the indicators are enriched), for the panel's "In the graph" link.
 */
import { findEntity } from "../store/graph.ts";
import { sampleRef } from "./analysis-graph.ts";
import type { IntelServices } from "./index.ts";

/** The file's entity id, or undefined while it is not in the graph (not enriched yet). */
export async function sampleEntityId(
  services: Pick<IntelServices, "store">,
  file: { sha256: string },
): Promise<string | undefined> {
  return (await findEntity(services.store.db, sampleRef(file)))?.id;
}
