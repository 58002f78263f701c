/**
 * A subject's result as stored: its neighbourhood (at most `maxEntities` entities) and the result
 * document built from it. What may be large is read in a render process (domain/renderer.ts).
 */
import type { Chunks } from "../../common/chunks.ts";
import type { Subject } from "../model/graph.ts";
import type { Store } from "../store/db.ts";
import { findEntity, readNeighbourhood } from "../store/graph.ts";
import { latestLookup, lookupSources } from "../store/requests.ts";
import { buildDocument, type DocumentOptions } from "./document.ts";
import { type SourceOutcome, sourceViews } from "./sources.ts";

export const subjectKey = (s: Subject) => `${s.superType}/${s.type}/${s.value}`;

/** The root and its neighbours: the subject's looked-up root entity, or an entity of that name. */
export async function neighbourhood(db: Store["db"], subject: Subject, depth: number, maxEntities: number) {
  const lookup = await latestLookup(db, subjectKey(subject));
  const root = lookup?.root_entity
    ? { id: lookup.root_entity }
    : await findEntity(db, { superType: subject.superType, type: subject.type, name: subject.value });
  return root ? readNeighbourhood(db, root.id, depth, maxEntities) : undefined;
}

/** The result document of a subject looked up before (or known as an entity), or undefined. */
export async function readDocument(
  db: Store["db"],
  subject: Subject,
  depth: number,
  maxEntities: number,
  opts: DocumentOptions = {},
) {
  const hood = await neighbourhood(db, subject, depth, maxEntities);
  if (!hood) return undefined;
  const sources = JSON.parse(await lookupSources(db, subjectKey(subject))) as Record<string, SourceOutcome>;
  return buildDocument(hood, sourceViews(sources, Date.now()), opts);
}

/** Renders a subject's stored document (without sources) as of a graph version, off the event loop. */
export interface DocumentRenderer {
  /** As slices (common/chunks.ts): a large document is never joined on the event loop. */
  document(subject: Subject, depth: number, version: string): Promise<Chunks | undefined>;
}
