/**
 * Batches (bulk asks) and their items: every SQL statement. An item's status is its request's, so
 * progress is read from the requests table and never drifts; a batch is marked finished once, by
 * whoever first sees none of its requests active.
 */
import type { Kysely } from "kysely";
import { ACTIVE_STATUSES } from "./requests.ts";
import type { BatchesTable, BatchItemsTable, Database } from "./schema.ts";
import { nowIso } from "./time.ts";

type Db = Kysely<Database>;

/** Rows per INSERT: well under SQLite's and PostgreSQL's bound-parameter limits. */
const INSERT_CHUNK = 200;

export interface BatchItemRow {
  idx: number;
  request_id: string;
  super_type: string;
  type: string;
  value: string;
  /** The request's status; null when the request is gone (retention). */
  status: string | null;
}

export async function insertBatch(db: Db, batch: BatchesTable): Promise<void> {
  await db.insertInto("batches").values(batch).execute();
}

/** All at once (one transaction): a worker never sees part of a batch and judges it finished. */
export async function insertBatchItems(db: Db, items: BatchItemsTable[]): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      await tx
        .insertInto("batch_items")
        .values(items.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  });
}

export const getBatch = (db: Db, id: string): Promise<BatchesTable | undefined> =>
  db.selectFrom("batches").selectAll().where("id", "=", id).executeTakeFirst();

/** Items per request status (a request gone with retention counts under "UNKNOWN"). */
export async function batchCounts(db: Db, batchId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom("batch_items")
    .leftJoin("requests", "requests.id", "batch_items.request_id")
    .select(["requests.status", db.fn.countAll<number>().as("n")])
    .where("batch_items.batch_id", "=", batchId)
    .groupBy("requests.status")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status ?? "UNKNOWN", Number(r.n)]));
}

/** A page of a batch's items in their asked order, with their requests' statuses. */
export function batchItems(db: Db, batchId: string, offset: number, limit: number): Promise<BatchItemRow[]> {
  return db
    .selectFrom("batch_items")
    .leftJoin("requests", "requests.id", "batch_items.request_id")
    .select([
      "batch_items.idx",
      "batch_items.request_id",
      "batch_items.super_type",
      "batch_items.type",
      "batch_items.value",
      "requests.status",
    ])
    .where("batch_items.batch_id", "=", batchId)
    .orderBy("batch_items.idx")
    .offset(offset)
    .limit(limit)
    .execute();
}

/** Unfinished batches waiting for `requestId`. */
export async function batchesWaitingFor(db: Db, requestId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("batch_items")
    .innerJoin("batches", "batches.id", "batch_items.batch_id")
    .select("batches.id")
    .distinct()
    .where("batch_items.request_id", "=", requestId)
    .where("batches.finished_at", "is", null)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Marks the batch finished if none of its requests is active; true for the one caller that did
 * (one conditional UPDATE: two workers finishing its last requests cannot both win).
 */
export async function finishBatchIfDone(db: Db, batchId: string): Promise<boolean> {
  const result = await db
    .updateTable("batches")
    .set({ finished_at: nowIso() })
    .where("id", "=", batchId)
    .where("finished_at", "is", null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("batch_items")
            .innerJoin("requests", "requests.id", "batch_items.request_id")
            .select("batch_items.idx")
            .where("batch_items.batch_id", "=", batchId)
            .where("requests.status", "in", ACTIVE_STATUSES),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
