/** What the service holds and runs right now: cache sizes, usable connectors, workers, queue depth. */
import type { Connector } from "../connectors/types.ts";
import type { JobQueue } from "../queue/jobs.ts";
import { configuredVendors } from "../store/credentials.ts";
import type { Store } from "../store/db.ts";

export async function serviceStatus(deps: { store: Store; queue: JobQueue; connectors: Connector[] }) {
  const { db } = deps.store;
  const count = async (table: "entities" | "events" | "relations") =>
    Number((await db.selectFrom(table).select(db.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
  const configured = await configuredVendors(db);
  return {
    cached_entities: await count("entities"),
    cached_events: await count("events"),
    cached_relations: await count("relations"),
    available_modules: deps.connectors
      .filter((c) => c.credentialFields.length === 0 || configured.has(c.id))
      .map((c) => c.id),
    workers: await deps.queue.workers(),
    queue: await deps.queue.depth(),
  };
}
