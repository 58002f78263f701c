/**
 * A durable job queue in the database, the same on SQLite and PostgreSQL: jobs survive restarts;
 * a worker claims a job with a conditional UPDATE (only one claimer can win) and holds a lease it
 * renews while working; a job whose worker died is claimed again when its lease expires
 * (at-least-once delivery; handlers are idempotent).
 */
import { randomUUID } from "node:crypto";
import { readlinkSync } from "node:fs";
import os from "node:os";
import { type Kysely, sql, type Transaction } from "kysely";
import { isAlive } from "../../common/process.ts";
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
  /** This process's worker, when it runs: what the status page shows beside its id. */
  self(): LocalWorker | undefined;
}

export interface LocalWorker {
  id: string;
  startedAt: number;
  /** Jobs being run now. */
  active: number;
  /** Jobs this worker finished since it started. */
  finished: number;
}

interface ClaimedJob {
  id: string;
  request_id: string;
  attempts: number;
}

export interface QueueOptions {
  leaseMs: number;
  concurrency: number;
  pollMs?: number;
}

/** Tries of a failed job in the worker that holds it (1, 2, 4, 8, 16 s apart) before leaving it to the lease. */
const LOCAL_RETRIES = 5;

/** How often a worker looks for jobs held by dead processes of its host. */
const RELEASE_EVERY_MS = 5000;

const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();

/**
 * Where a process's id means something: the host name and the PID namespace (two containers on
 * one host share the name but not the namespace). Kept short: the column holds 64 characters.
 */
function processPlace(): string {
  let namespace = "-";
  try {
    namespace = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "-";
  } catch {
    // Not Linux: no namespace id, so no other process is ever judged dead (see releaseDeadWorkers).
  }
  return `${os.hostname().slice(0, 32)}/${namespace}`;
}

/** `place:pid:random` — parsed back by `deadWorker`. */
export function newWorkerId(place = processPlace(), pid = process.pid): string {
  return `${place}:${pid}:${randomUUID().slice(0, 6)}`;
}

/** A worker id of this host and PID namespace whose process no longer exists. */
export function deadWorker(workerId: string, place = processPlace()): boolean {
  const parts = workerId.split(":");
  const pid = Number(parts.at(-2));
  const where = parts.slice(0, -2).join(":");
  if (where !== place || place.endsWith("/-") || !Number.isInteger(pid) || pid <= 0) return false;
  return pid !== process.pid && !isAlive(pid);
}

export function createJobQueue(db: Kysely<Database>, opts: QueueOptions): JobQueue {
  const workerId = newWorkerId();
  const pollMs = opts.pollMs ?? 250;
  let running = false;
  let active = 0;
  let startedAt = 0;
  let finished = 0;
  let wake: (() => void) | undefined;
  const inFlight = new Set<Promise<void>>();
  /** Ids of the jobs this worker is running. */
  const runningHere = new Set<string>();
  const pauses = new Set<() => void>();
  /** Waits `ms`, or less when the queue stops. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        pauses.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      pauses.add(done);
    });
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

  async function claim(): Promise<ClaimedJob | undefined> {
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
          .select(["id", "request_id", "attempts"])
          .where("id", "=", id)
          .executeTakeFirst();
        if (job) return job;
      }
    }
    return undefined;
  }

  async function runJob(job: ClaimedJob, handler: (requestId: string) => Promise<void>) {
    runningHere.add(job.id);
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
      for (let retry = 1; ; retry++) {
        try {
          await handler(job.request_id);
          break;
        } catch {
          // Usually the database going away for a moment (the handler records any other failure
          // on the request, and the next try sees it finished). Try again soon, still holding
          // the lease — writing anything may fail right now — and after a few tries leave the
          // job to its lease.
          if (!running || retry > LOCAL_RETRIES) return;
          await pause(500 * 2 ** retry);
        }
      }
      await db.deleteFrom("jobs").where("id", "=", job.id).where("worker", "=", workerId).execute();
      finished++;
    } catch {
      // The database is away: the lease expires and the job is claimed again (a no-op if done).
    } finally {
      clearInterval(renew);
      runningHere.delete(job.id);
    }
  }

  /**
   * Jobs leased by a process of this host that is gone (killed, crashed), or by this worker without
   * it knowing (see lostClaim), are taken back at start and every few seconds: a restarted service must not leave its lookups waiting for their
   * leases to expire (minutes by default). Other hosts' dead workers still wait for the lease.
   */
  async function releaseDeadWorkers(): Promise<void> {
    const held = await db
      .selectFrom("jobs")
      .select(["id", "worker"])
      .where("status", "=", "running")
      .where("lease_until", ">=", nowIso())
      .execute();
    for (const job of held) {
      // Ours but not running here: the claim committed while its answer was lost (a connection
      // cut mid-query) — nobody would run it until the lease expired.
      const lostClaim = job.worker === workerId && !runningHere.has(job.id);
      if (!job.worker || (!lostClaim && !deadWorker(job.worker))) continue;
      await db
        .updateTable("jobs")
        .set({ status: "queued", lease_until: null, worker: null })
        .where("id", "=", job.id)
        .where("worker", "=", job.worker)
        .execute();
    }
  }

  async function mainLoop(handler: (requestId: string) => Promise<void>) {
    let released = 0;
    while (running) {
      if (Date.now() - released > RELEASE_EVERY_MS) {
        released = Date.now();
        await releaseDeadWorkers().catch(() => undefined);
      }
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
      startedAt = Date.now();
      loop = mainLoop(handler);
    },
    async stop() {
      running = false;
      wake?.();
      for (const done of [...pauses]) done();
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
    self() {
      return running ? { id: workerId, startedAt, active, finished } : undefined;
    },
  };
}
