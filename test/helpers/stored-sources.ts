/** Reaching into a subject's stored per-vendor outcomes, for freshness tests: as if fetched earlier. */
import type { Store } from "../../src/intel/store/db.ts";

/** Moves `vendor`'s stored fetch of `subjectKey` back by `ms`, and renews rendered answers. */
export async function ageStoredSource(
  store: Store,
  subjectKey: string,
  vendor: string,
  ms: number,
): Promise<void> {
  const row = await store.db
    .selectFrom("lookups")
    .select("sources")
    .where("subject_key", "=", subjectKey)
    .executeTakeFirstOrThrow();
  const sources = JSON.parse(row.sources ?? "{}");
  sources[vendor].fetched_at = new Date(Date.parse(sources[vendor].fetched_at) - ms).toISOString();
  await store.db
    .updateTable("lookups")
    .set({ sources: JSON.stringify(sources) })
    .where("subject_key", "=", subjectKey)
    .execute();
  // The rendered cache is keyed by the graph version: a stored answer changed under it.
  await store.db
    .updateTable("settings")
    .set({ value: `aged-${Math.random()}` })
    .where("key", "=", "graph_version")
    .execute();
}
