/**
 * The jobs table: every SQL statement of the queue. A claim is a conditional UPDATE (only one
 * claimer can win, on SQLite and PostgreSQL alike); a lease is renewed while the job runs; a job
 * is deleted when done, or put back when its worker is gone.
 */
import { type ExpressionBuilder, type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "./schema.ts";
import { newId, nowIso } from "./time.ts";

type Db = Kysely<Database>;

export interface ClaimedJob {
  id: string;
  request_id: string;
  attempts: number;
  priority: number;
}

/** Job priorities: interactive asks (one subject from a client) are claimed before bulk ones. */
export const INTERACTIVE = 0;
export const BULK = 1;

const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();

export async function insertJob(
  db: Db | Transaction<Database>,
  requestId: string,
  priority: number = INTERACTIVE,
): Promise<void> {
  await db
    .insertInto("jobs")
    .values({
      id: newId(),
      request_id: requestId,
      priority,
      status: "queued",
      attempts: 0,
      lease_until: null,
      worker: null,
      created_at: nowIso(),
    })
    .execute();
}

/**
 * Claims the job that is queued or whose lease expired, for `worker`, or undefined: interactive
 * jobs first, then the oldest. `interactiveOnly` leaves bulk jobs alone (the worker keeps slots
 * free for interactive asks). One statement: the oldest claimable job is picked and taken at once.
 * `skipLocked` (PostgreSQL) passes over a job another worker is taking at that moment instead of
 * waiting for it and finding it gone; SQLite runs one writer at a time, so nothing is ever locked.
 */
export async function claimJob(
  db: Db,
  worker: string,
  leaseMs: number,
  interactiveOnly = false,
  skipLocked = false,
): Promise<ClaimedJob | undefined> {
  const now = nowIso();
  const claimable = (eb: ExpressionBuilder<Database, "jobs">) =>
    eb.or([eb("status", "=", "queued"), eb.and([eb("status", "=", "running"), eb("lease_until", "<", now)])]);
  const oldest = db
    .selectFrom("jobs")
    .select("id")
    .where(claimable)
    .$if(interactiveOnly, (q) => q.where("priority", "=", INTERACTIVE))
    .orderBy("priority")
    .orderBy("created_at")
    .limit(1)
    .$if(skipLocked, (q) => q.forUpdate().skipLocked());
  return db
    .updateTable("jobs")
    .set({ status: "running", lease_until: inFuture(leaseMs), worker, attempts: sql`attempts + 1` })
    .where("id", "=", oldest)
    .where(claimable)
    .returning(["id", "request_id", "attempts", "priority"])
    .executeTakeFirst();
}

/** Makes a request's bulk job interactive: a client asking for it now waits behind no batch. */
export async function promoteJob(db: Db, requestId: string): Promise<void> {
  const bulk = await db
    .selectFrom("jobs")
    .select("id")
    .where("request_id", "=", requestId)
    .where("priority", ">", INTERACTIVE)
    .executeTakeFirst();
  if (!bulk) return;
  await db.updateTable("jobs").set({ priority: INTERACTIVE }).where("id", "=", bulk.id).execute();
}

export async function renewLease(db: Db, jobId: string, worker: string, leaseMs: number): Promise<void> {
  await db
    .updateTable("jobs")
    .set({ lease_until: inFuture(leaseMs) })
    .where("id", "=", jobId)
    .where("worker", "=", worker)
    .execute();
}

export async function deleteJob(db: Db, jobId: string, worker: string): Promise<void> {
  await db.deleteFrom("jobs").where("id", "=", jobId).where("worker", "=", worker).execute();
}

/** Jobs running under a lease that has not expired, with the worker holding each. */
export function leasedJobs(db: Db): Promise<Array<{ id: string; worker: string | null }>> {
  return db
    .selectFrom("jobs")
    .select(["id", "worker"])
    .where("status", "=", "running")
    .where("lease_until", ">=", nowIso())
    .execute();
}

/** Puts a job back in the queue, if `worker` still holds it. */
export async function requeueJob(db: Db, jobId: string, worker: string): Promise<void> {
  await db
    .updateTable("jobs")
    .set({ status: "queued", lease_until: null, worker: null })
    .where("id", "=", jobId)
    .where("worker", "=", worker)
    .execute();
}

export async function queueDepth(db: Db): Promise<{ queued: number; running: number }> {
  const rows = await db
    .selectFrom("jobs")
    .select(["status", db.fn.countAll<number>().as("n")])
    .groupBy("status")
    .execute();
  const count = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  return { queued: count("queued"), running: count("running") };
}

/** Workers holding a lease now. */
export async function leaseHolders(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom("jobs")
    .select("worker")
    .distinct()
    .where("status", "=", "running")
    .where("lease_until", ">", nowIso())
    .execute();
  return rows.map((r) => r.worker).filter((w): w is string => !!w);
}

/** Every job not finished, with its lease (the doctor's queue check). */
export function pendingJobs(db: Db): Promise<Array<{ status: string; lease_until: string | null }>> {
  return db
    .selectFrom("jobs")
    .select(["status", "lease_until"])
    .where("status", "in", ["queued", "running"])
    .execute();
}
