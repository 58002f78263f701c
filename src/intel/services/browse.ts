/** What the panel browses: recent requests, one request's raw answers, entity search and one entity's surroundings (read-only). */
import type { Kysely } from "kysely";
import { rawAnswersOf } from "../store/raw-answers.ts";
import { getRequest } from "../store/requests.ts";
import type { Database } from "../store/schema.ts";

// A request's per-vendor outcomes, as the panel's request pages read them.
export type { SourceOutcome } from "../domain/sources.ts";
export {
  ENTITY_ORDERS,
  type EntityOrder,
  entityDetail,
  REQUEST_ORDERS,
  type RequestOrder,
  recentRequests,
  searchEntities,
} from "../store/browse.ts";
export { parseAttributes } from "../store/graph.ts";

/** One request and each vendor's raw answer kept for it (redacted when kept), or undefined. */
export async function requestWithRawAnswers(db: Kysely<Database>, id: string) {
  const request = await getRequest(db, id);
  if (!request) return undefined;
  return { request, raw: await rawAnswersOf(db, id) };
}
