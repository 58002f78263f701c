/**
 * A durable job queue in the database, the same on SQLite and PostgreSQL: jobs survive restarts;
 * a worker claims a job with a conditional UPDATE (only one claimer can win) and holds a lease it
 * renews while working; a job whose worker died is claimed again when its lease expires
 * (at-least-once delivery; handlers are idempotent).
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "../store/schema.ts";
import { newId, nowIso } from "../store/time.ts";

export interface JobQueue {
  enqueue(requestId: string, tx?: Transaction<Database>): Promise<void>;
  /** Starts processing in this process; `handler` gets the request id. */
  start(handler: (requestId: string) => Promise<void>): void;
  stop(): Promise<void>;
  depth(): Promise<{ queued: number; running: number }>;
  /** Workers seen holding a lease recently (this one included when running). */
  workers(): Promise<string[]>;
}

export interface QueueOptions {
  leaseMs: number;
  concurrency: number;
  pollMs?: number;
}

const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();

export function createJobQueue(db: Kysely<Database>, opts: QueueOptions): JobQueue {
  const workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 6)}`;
  const pollMs = opts.pollMs ?? 250;
  let running = false;
  let active = 0;
  let wake: (() => void) | undefined;
  const inFlight = new Set<Promise<void>>();
  let loop: Promise<void> | undefined;

  const claimable = (now: string) =>
    db
      .selectFrom("jobs")
      .select("id")
      .where((eb) =>
        eb.or([
          eb("status", "=", "queued"),
          eb.and([eb("status", "=", "running"), eb("lease_until", "<", now)]),
        ]),
      )
      .orderBy("created_at")
      .limit(8);

  async function claim(): Promise<{ id: string; request_id: string } | undefined> {
    const now = nowIso();
    for (const { id } of await claimable(now).execute()) {
      const result = await db
        .updateTable("jobs")
        .set({
          status: "running",
          lease_until: inFuture(opts.leaseMs),
          worker: workerId,
          attempts: sql`attempts + 1`,
        })
        .where("id", "=", id)
        .where((eb) =>
          eb.or([
            eb("status", "=", "queued"),
            eb.and([eb("status", "=", "running"), eb("lease_until", "<", now)]),
          ]),
        )
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) {
        const job = await db
          .selectFrom("jobs")
          .select(["id", "request_id"])
          .where("id", "=", id)
          .executeTakeFirst();
        if (job) return job;
      }
    }
    return undefined;
  }

  async function runJob(
    job: { id: string; request_id: string },
    handler: (requestId: string) => Promise<void>,
  ) {
    const renew = setInterval(
      () => {
        void db
          .updateTable("jobs")
          .set({ lease_until: inFuture(opts.leaseMs) })
          .where("id", "=", job.id)
          .where("worker", "=", workerId)
          .execute()
          .catch(() => undefined);
      },
      Math.max(1000, opts.leaseMs / 3),
    );
    try {
      await handler(job.request_id);
      await db.deleteFrom("jobs").where("id", "=", job.id).where("worker", "=", workerId).execute();
    } catch {
      // Leave the job leased: it is retried when the lease expires (the handler recorded the error).
    } finally {
      clearInterval(renew);
    }
  }

  async function mainLoop(handler: (requestId: string) => Promise<void>) {
    while (running) {
      let claimed = false;
      if (active < opts.concurrency) {
        const job = await claim().catch(() => undefined);
        if (job) {
          claimed = true;
          active++;
          const p = runJob(job, handler).finally(() => {
            active--;
            inFlight.delete(p);
            wake?.();
          });
          inFlight.add(p);
        }
      }
      if (!claimed) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  }

  return {
    async enqueue(requestId, tx) {
      await (tx ?? db)
        .insertInto("jobs")
        .values({
          id: newId(),
          request_id: requestId,
          status: "queued",
          attempts: 0,
          lease_until: null,
          worker: null,
          created_at: nowIso(),
        })
        .execute();
      wake?.();
    },
    start(handler) {
      if (running) return;
      running = true;
      loop = mainLoop(handler);
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      await Promise.allSettled(inFlight);
    },
    async depth() {
      const rows = await db
        .selectFrom("jobs")
        .select(["status", db.fn.countAll<number>().as("n")])
        .groupBy("status")
        .execute();
      const count = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
      return { queued: count("queued"), running: count("running") };
    },
    async workers() {
      const rows = await db
        .selectFrom("jobs")
        .select("worker")
        .distinct()
        .where("status", "=", "running")
        .where("lease_until", ">", nowIso())
        .execute();
      const seen = new Set(rows.map((r) => r.worker).filter((w): w is string => !!w));
      if (running) seen.add(workerId);
      return [...seen].sort();
    },
  };
}
