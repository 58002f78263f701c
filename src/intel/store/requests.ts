/**
 * Requests and the latest finished one per subject (the `lookups` table): every SQL statement of
 * the request lifecycle. Creating a request and enqueueing its job happen in one transaction, under
 * a per-subject lock on PostgreSQL (SQLite serialises writers already), so a subject never has two
 * active requests.
 */
import { type Kysely, sql, type Transaction } from "kysely";
import type { Store } from "./db.ts";
import type { Database, LookupsTable, RequestsTable } from "./schema.ts";
import { newId, nowIso } from "./time.ts";

type Db = Kysely<Database>;

/** A request still to be answered. */
export const ACTIVE_STATUSES = ["ENQUEUED", "PROCESSING"];
const GRAPH_VERSION = "graph_version";

export const getRequest = (db: Db, id: string): Promise<RequestsTable | undefined> =>
  db.selectFrom("requests").selectAll().where("id", "=", id).executeTakeFirst();

export const activeRequest = (db: Db, subjectKey: string): Promise<RequestsTable | undefined> =>
  db
    .selectFrom("requests")
    .selectAll()
    .where("subject_key", "=", subjectKey)
    .where("status", "in", ACTIVE_STATUSES)
    .orderBy("created_at", "desc")
    .executeTakeFirst();

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

/** The subject's active request, or a new one enqueued by `enqueue` in the same transaction. */
export async function joinOrCreateRequest(
  store: Store,
  subject: { superType: string; type: string; value: string; key: string },
  force: boolean,
  enqueue: (requestId: string, tx: Transaction<Database>) => Promise<void>,
): Promise<RequestsTable> {
  return store.db.transaction().execute(async (tx) => {
    if (store.dialect === "postgres")
      await sql`select pg_advisory_xact_lock(hashtext(${subject.key}))`.execute(tx);
    const active = await activeRequest(tx, subject.key);
    if (active) return active;
    const row: RequestsTable = {
      id: newId(),
      super_type: subject.superType,
      type: subject.type,
      value: subject.value,
      subject_key: subject.key,
      force: force ? 1 : 0,
      status: "ENQUEUED",
      vendors: "{}",
      error: null,
      created_at: nowIso(),
      started_at: null,
      finished_at: null,
    };
    await tx.insertInto("requests").values(row).execute();
    await enqueue(row.id, tx);
    return row;
  });
}

export async function markProcessing(db: Db, id: string): Promise<void> {
  await db
    .updateTable("requests")
    .set({ status: "PROCESSING", started_at: nowIso() })
    .where("id", "=", id)
    .execute();
}

export async function markFailed(db: Db, id: string, error: string): Promise<void> {
  await db
    .updateTable("requests")
    .set({ status: "FAILED", error, finished_at: nowIso() })
    .where("id", "=", id)
    .execute();
}

/** Ends a request, makes it its subject's latest, and bumps the graph version — atomically. */
export async function finishRequest(
  db: Db,
  done: { id: string; subjectKey: string; rootId: string; status: "SUCCEEDED" | "FAILED"; vendors: string },
): Promise<void> {
  const finishedAt = nowIso();
  const { id, subjectKey, rootId, status } = done;
  await db.transaction().execute(async (tx) => {
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
    await tx
      .insertInto("lookups")
      .values({
        subject_key: subjectKey,
        root_entity: rootId,
        request_id: id,
        status,
        finished_at: finishedAt,
      })
      .onConflict((oc) =>
        oc
          .column("subject_key")
          .doUpdateSet({ root_entity: rootId, request_id: id, status, finished_at: finishedAt }),
      )
      .execute();
    await tx
      .insertInto("settings")
      .values({ key: GRAPH_VERSION, value: newId() })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: newId() }))
      .execute();
  });
}
