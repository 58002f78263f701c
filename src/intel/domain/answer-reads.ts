/**
 * The reads of a non-forced ask — which vendors have credentials, the subject's requests under way,
 * its latest lookup and per-vendor outcomes, its stored marks, the graph version — through one view of the read cache
 * (store/read-cache.ts): the same values as straight from the database, from memory while nothing
 * was committed. Values are shared between callers: never mutate them.
 */
import type { EntityRef } from "../model/graph.ts";
import { configuredVendors } from "../store/credentials.ts";
import type { Store } from "../store/db.ts";
import { entityMarks } from "../store/graph.ts";
import type { ReadView } from "../store/read-cache.ts";
import { activeRequests, graphVersion, latestLookup, storedSources } from "../store/requests.ts";
import type { LookupsTable } from "../store/schema.ts";
import type { SourceOutcome } from "./sources.ts";

export type AnswerReads = ReturnType<typeof answerReads>;

export function answerReads(db: Store["db"], view: ReadView) {
  return {
    configuredVendors: () => view.read("configured-vendors", () => configuredVendors(db)),
    activeRequests: (key: string) => view.read(`active:${key}`, () => activeRequests(db, key)),
    latestLookup: (key: string) => view.read(`lookup:${key}`, () => latestLookup(db, key)),
    /** The subject's per-vendor outcomes as of `lookup` (its latest). */
    sources: (key: string, lookup: LookupsTable | undefined) =>
      view.read(
        `sources:${key}`,
        async () => JSON.parse(await storedSources(db, lookup)) as Record<string, SourceOutcome>,
      ),
    graphVersion: () => view.read("graph-version", () => graphVersion(db)),
    /** A subject's stored TLP and PAP (its root entity's), undefined while it has no entity. */
    entityMarks: (ref: EntityRef) =>
      view.read(`marks:${ref.superType}/${ref.type}/${ref.name}`, () => entityMarks(db, ref)),
  };
}
