/** What the panel browses: recent requests, one request's raw answers, entity search and one entity's surroundings (read-only). */
import * as browse from "../store/browse.ts";
import { rawAnswersOf } from "../store/raw-answers.ts";
import { getRequest } from "../store/requests.ts";
import type { WithStore } from "./index.ts";

// A request's per-vendor outcomes, as the panel's request pages read them.
export type { SourceOutcome } from "../domain/sources.ts";
export { ENTITY_ORDERS, type EntityOrder, REQUEST_ORDERS, type RequestOrder } from "../store/browse.ts";
export { parseAttributes } from "../store/graph.ts";

/** One request and each vendor's raw answer kept for it (redacted when kept), or undefined. */
export async function requestWithRawAnswers({ store }: WithStore, id: string) {
  const { db } = store;
  const request = await getRequest(db, id);
  if (!request) return undefined;
  return { request, raw: await rawAnswersOf(db, id) };
}

/** The newest requests, filtered and ordered as the panel's Requests page asks. */
export const recentRequests = ({ store }: WithStore, o: Parameters<typeof browse.recentRequests>[1]) =>
  browse.recentRequests(store.db, o);

/** Stored entities matching the panel's search. */
export const searchEntities = ({ store }: WithStore, o: Parameters<typeof browse.searchEntities>[1]) =>
  browse.searchEntities(store.db, o);

/** One entity with its links, or undefined. */
export const entityDetail = ({ store }: WithStore, id: string) => browse.entityDetail(store.db, id);
