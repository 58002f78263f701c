/**
 * Requests and the latest finished one per subject (the `lookups` table, with the subject's
 * per-vendor outcomes merged over its requests): every SQL statement of the request lifecycle.
 * Creating a request and enqueueing its job happen in one transaction, under a per-subject lock on
 * PostgreSQL (SQLite serialises writers already), so a subject never has two active requests that
 * ask the same vendors; finishing merges outcomes under the same lock.
 */
import { type Kysely, sql, type Transaction } from "kysely";
import type { Store } from "./db.ts";
import { insertJob } from "./jobs.ts";
import type { Database, LookupsTable, RequestsTable } from "./schema.ts";
import { newId, nowIso } from "./time.ts";

type Db = Kysely<Database>;

/** A request still to be answered. */
export const ACTIVE_STATUSES = ["ENQUEUED", "PROCESSING"];
const GRAPH_VERSION = "graph_version";

export const getRequest = (db: Db, id: string): Promise<RequestsTable | undefined> =>
  db.selectFrom("requests").selectAll().where("id", "=", id).executeTakeFirst();

/** The subject's requests under way, newest first. */
export const activeRequests = (db: Db, subjectKey: string): Promise<RequestsTable[]> =>
  db
    .selectFrom("requests")
    .selectAll()
    .where("subject_key", "=", subjectKey)
    .where("status", "in", ACTIVE_STATUSES)
    .orderBy("created_at", "desc")
    .execute();

/** What a new request asks (vendor ids, sorted), how it was asked, and the outcomes known before it runs (skips). */
export interface RequestPlan {
  asked: string[];
  force: boolean;
  background: boolean;
  tlp: string | null;
  pap: string | null;
  /** JSON: vendor id → outcome, for the vendors it will not ask. */
  vendors: string;
  /**
   * Create it only while this request is still the subject's latest finished one: a refresh decided
   * on an answer that another request has replaced meanwhile is not needed any more.
   */
  whileLatest?: string;
}

const lockSubject = async (store: Store, tx: Transaction<Database>, key: string) => {
  if (store.dialect === "postgres") await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(tx);
};

/** The latest finished request of a subject (its root entity and outcome), if any. */
export const latestLookup = (db: Db, subjectKey: string): Promise<LookupsTable | undefined> =>
  db.selectFrom("lookups").selectAll().where("subject_key", "=", subjectKey).executeTakeFirst();

/** Changes whenever a request finishes anywhere: rendered answers keyed by it stay consistent across processes. */
export async function graphVersion(db: Db): Promise<string> {
  const row = await db
    .selectFrom("settings")
    .select("value")
    .where("key", "=", GRAPH_VERSION)
    .executeTakeFirst();
  return row?.value ?? "";
}

/** A request joined or made, and whether it was made (its job then waits to be claimed). */
export interface Joined {
  request: RequestsTable;
  created: boolean;
}

/**
 * The subject's active request that asks exactly the vendors of `plan` (a caller who waits makes a
 * background refresh a foreground one), or a new one with its job (at `priority`), in the caller's
 * transaction `tx` (under the subject's lock: the caller starts it for this alone).
 */
export async function joinOrCreateRequest(
  store: Store,
  tx: Transaction<Database>,
  subject: { superType: string; type: string; value: string; key: string },
  plan: RequestPlan & { whileLatest?: undefined },
  priority: number,
): Promise<Joined>;
export async function joinOrCreateRequest(
  store: Store,
  tx: Transaction<Database>,
  subject: { superType: string; type: string; value: string; key: string },
  plan: RequestPlan,
  priority: number,
): Promise<Joined | undefined>;
export async function joinOrCreateRequest(
  store: Store,
  tx: Transaction<Database>,
  subject: { superType: string; type: string; value: string; key: string },
  plan: RequestPlan,
  priority: number,
): Promise<Joined | undefined> {
  const asked = JSON.stringify(plan.asked);
  await lockSubject(store, tx, subject.key);
  const same = (await activeRequests(tx, subject.key)).find((r) => r.asked === asked);
  if (same && same.background === 1 && !plan.background) {
    await tx.updateTable("requests").set({ background: 0 }).where("id", "=", same.id).execute();
    return { request: { ...same, background: 0 }, created: false };
  }
  if (same) return { request: same, created: false };
  if (
    plan.whileLatest !== undefined &&
    (await latestLookup(tx, subject.key))?.request_id !== plan.whileLatest
  )
    return undefined;
  const row: RequestsTable = {
    id: newId(),
    super_type: subject.superType,
    type: subject.type,
    value: subject.value,
    subject_key: subject.key,
    force: plan.force ? 1 : 0,
    status: "ENQUEUED",
    vendors: plan.vendors,
    error: null,
    created_at: nowIso(),
    started_at: null,
    finished_at: null,
    asked,
    background: plan.background ? 1 : 0,
    tlp: plan.tlp,
    pap: plan.pap,
  };
  await tx.insertInto("requests").values(row).execute();
  await insertJob(tx, row.id, priority);
  return { request: row, created: true };
}

/** Marks a request still to be answered PROCESSING and returns it (undefined: gone or finished). */
export function markProcessing(db: Db, id: string): Promise<RequestsTable | undefined> {
  return db
    .updateTable("requests")
    .set({ status: "PROCESSING", started_at: nowIso() })
    .where("id", "=", id)
    .where("status", "in", ACTIVE_STATUSES)
    .returningAll()
    .executeTakeFirst();
}

export async function markFailed(db: Db, id: string, error: string): Promise<void> {
  await db
    .updateTable("requests")
    .set({ status: "FAILED", error, finished_at: nowIso() })
    .where("id", "=", id)
    .execute();
}

/** The subject's per-vendor outcomes as of its latest finished request (older rows: that request's own). */
export async function storedSources(db: Db, lookup: LookupsTable | undefined): Promise<string> {
  if (!lookup) return "{}";
  if (lookup.sources != null) return lookup.sources;
  return (await getRequest(db, lookup.request_id))?.vendors ?? "{}";
}

export const lookupSources = async (db: Db, subjectKey: string): Promise<string> =>
  storedSources(db, await latestLookup(db, subjectKey));

/**
 * Ends a request, makes it its subject's latest, and bumps the graph version — atomically. `settle`
 * merges the request's outcomes (JSON) with the subject's earlier ones and says the status.
 */
export async function finishRequest(
  store: Store,
  done: {
    id: string;
    subjectKey: string;
    rootId: string;
    vendors: string;
    settle(previousSources: string): { sources: string; status: "SUCCEEDED" | "FAILED" };
  },
): Promise<void> {
  const { id, subjectKey, rootId } = done;
  await store.db.transaction().execute(async (tx) => {
    await lockSubject(store, tx, subjectKey);
    const finishedAt = nowIso();
    const previous = await storedSources(tx, await latestLookup(tx, subjectKey));
    const { sources, status } = done.settle(previous);
    await tx
      .updateTable("requests")
      .set({
        status,
        vendors: done.vendors,
        error: status === "FAILED" ? "every vendor failed" : null,
        finished_at: finishedAt,
      })
      .where("id", "=", id)
      .execute();
    const lookup = { root_entity: rootId, request_id: id, status, finished_at: finishedAt, sources };
    await tx
      .insertInto("lookups")
      .values({ subject_key: subjectKey, ...lookup })
      .onConflict((oc) => oc.column("subject_key").doUpdateSet(lookup))
      .execute();
    await bumpGraphVersion(tx);
  });
}

/** Rendered answers made before now are out of date (a request finished, a marking changed). */
export async function bumpGraphVersion(db: Db): Promise<void> {
  await db
    .insertInto("settings")
    .values({ key: GRAPH_VERSION, value: newId() })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: newId() }))
    .execute();
}
