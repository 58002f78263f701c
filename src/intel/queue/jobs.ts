/**
 * A durable job queue in the database, the same on SQLite and PostgreSQL: jobs survive restarts;
 * a worker claims a job with a conditional UPDATE (only one claimer can win) and holds a lease it
 * renews while working; a job whose worker died is claimed again when its lease expires
 * (at-least-once delivery; handlers are idempotent).
 */
import { randomUUID } from "node:crypto";
import { readlinkSync } from "node:fs";
import os from "node:os";
import type { Kysely, Transaction } from "kysely";
import { isAlive } from "../../common/process.ts";
import {
  BULK,
  type ClaimedJob,
  claimJob,
  deleteJob,
  INTERACTIVE,
  insertJob,
  leasedJobs,
  leaseHolders,
  promoteJob,
  queueDepth,
  renewLease,
  requeueJob,
} from "../store/jobs.ts";
import type { Database } from "../store/schema.ts";

export type Lane = "interactive" | "bulk";

/** A lane as the jobs table orders it (interactive first). */
export const priorityOf = (lane: Lane): number => (lane === "bulk" ? BULK : INTERACTIVE);

export interface JobQueue {
  /** Bulk jobs are claimed after every interactive one, and never take a worker's reserved slots. */
  enqueue(requestId: string, tx?: Transaction<Database>, lane?: Lane): Promise<void>;
  /** Tells this process's worker that a job was just committed (the store inserts a request's job with it). */
  wake(): void;
  /** Moves a request's bulk job to the interactive lane (a client now waits for it). */
  promote(requestId: string): Promise<void>;
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

export interface QueueOptions {
  leaseMs: number;
  concurrency: number;
  /** Slots kept for interactive jobs: bulk jobs run in at most concurrency − this (at least 1). */
  interactiveSlots?: number;
  pollMs?: number;
  /** Claims pass over jobs other workers are taking (PostgreSQL's SKIP LOCKED). */
  skipLocked?: boolean;
}

/** Tries of a failed job in the worker that holds it (1, 2, 4, 8, 16 s apart) before leaving it to the lease. */
const LOCAL_RETRIES = 5;

/** How often a worker looks for jobs held by dead processes of its host. */
const RELEASE_EVERY_MS = 5000;

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
  const worker = new QueueWorker(db, opts);
  return {
    async enqueue(requestId, tx, lane = "interactive") {
      await insertJob(tx ?? db, requestId, priorityOf(lane));
      worker.wake();
    },
    wake: () => worker.wake(),
    async promote(requestId) {
      await promoteJob(db, requestId);
      worker.wake();
    },
    start: (handler) => worker.start(handler),
    stop: () => worker.stop(),
    depth: () => queueDepth(db),
    async workers() {
      const seen = new Set(await leaseHolders(db));
      if (worker.running) seen.add(worker.id);
      return [...seen].sort();
    },
    self: () => worker.self(),
  };
}

type Handler = (requestId: string) => Promise<void>;

/** The worker loop of one process: claims jobs up to its concurrency, runs them under renewed leases. */
class QueueWorker {
  readonly id = newWorkerId();
  running = false;
  private active = 0;
  /** Bulk jobs among `active`. */
  private activeBulk = 0;
  private startedAt = 0;
  private finished = 0;
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Ids of the jobs this worker is running. */
  private readonly runningHere = new Set<string>();
  private readonly pauses = new Set<() => void>();

  private readonly db: Kysely<Database>;
  private readonly opts: QueueOptions;

  constructor(db: Kysely<Database>, opts: QueueOptions) {
    this.db = db;
    this.opts = opts;
  }

  wake(): void {
    this.wakeUp?.();
  }

  start(handler: Handler): void {
    if (this.running) return;
    this.running = true;
    this.startedAt = Date.now();
    this.loop = this.mainLoop(handler);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    for (const done of [...this.pauses]) done();
    await this.loop;
    await Promise.allSettled(this.inFlight);
  }

  self(): LocalWorker | undefined {
    const { id, startedAt, active, finished } = this;
    return this.running ? { id, startedAt, active, finished } : undefined;
  }

  /** Waits `ms`, or less when the queue stops. */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.pauses.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.pauses.add(done);
    });
  }

  private async mainLoop(handler: Handler): Promise<void> {
    let released = 0;
    while (this.running) {
      if (Date.now() - released > RELEASE_EVERY_MS) {
        released = Date.now();
        await this.releaseDeadWorkers().catch(() => undefined);
      }
      const job =
        this.active < this.opts.concurrency
          ? await claimJob(
              this.db,
              this.id,
              this.opts.leaseMs,
              !this.bulkSlotFree(),
              this.opts.skipLocked,
            ).catch(() => undefined)
          : undefined;
      if (job) this.launch(job, handler);
      else await this.idle();
    }
  }

  /** Whether a bulk job may start: bulk jobs leave `interactiveSlots` free (but always get one). */
  private bulkSlotFree(): boolean {
    const { concurrency, interactiveSlots = 0 } = this.opts;
    return this.activeBulk < Math.max(1, concurrency - interactiveSlots);
  }

  private launch(job: ClaimedJob, handler: Handler): void {
    const bulk = job.priority !== INTERACTIVE;
    this.active++;
    if (bulk) this.activeBulk++;
    const p = this.runJob(job, handler).finally(() => {
      this.active--;
      if (bulk) this.activeBulk--;
      this.inFlight.delete(p);
      this.wake();
    });
    this.inFlight.add(p);
  }

  /** Sleeps a poll interval, or until a job is enqueued here or one finishes. */
  private async idle(): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, this.opts.pollMs ?? 250);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wakeUp = undefined;
  }

  private async runJob(job: ClaimedJob, handler: Handler): Promise<void> {
    this.runningHere.add(job.id);
    const { leaseMs } = this.opts;
    const renew = setInterval(
      () => void renewLease(this.db, job.id, this.id, leaseMs).catch(() => undefined),
      Math.max(1000, leaseMs / 3),
    );
    try {
      if (!(await this.runWithRetries(job, handler))) return;
      await deleteJob(this.db, job.id, this.id);
      this.finished++;
    } catch {
      // The database is away: the lease expires and the job is claimed again (a no-op if done).
    } finally {
      clearInterval(renew);
      this.runningHere.delete(job.id);
    }
  }

  /**
   * A failure is usually the database going away for a moment (the handler records any other
   * failure on the request, and the next try sees it finished). Try again soon, still holding the
   * lease — writing anything may fail right now — and after a few tries leave the job to its lease.
   */
  private async runWithRetries(job: ClaimedJob, handler: Handler): Promise<boolean> {
    for (let retry = 1; ; retry++) {
      try {
        await handler(job.request_id);
        return true;
      } catch {
        if (!this.running || retry > LOCAL_RETRIES) return false;
        await this.pause(500 * 2 ** retry);
      }
    }
  }

  /**
   * Jobs leased by a process of this host that is gone (killed, crashed), or by this worker without
   * it knowing (see lostClaim), are taken back at start and every few seconds: a restarted service
   * must not leave its requests waiting for their leases to expire (minutes by default). Other
   * hosts' dead workers still wait for the lease.
   */
  private async releaseDeadWorkers(): Promise<void> {
    for (const job of await leasedJobs(this.db)) {
      // Ours but not running here: the claim committed while its answer was lost (a connection
      // cut mid-query) — nobody would run it until the lease expired.
      const lostClaim = job.worker === this.id && !this.runningHere.has(job.id);
      if (!job.worker || (!lostClaim && !deadWorker(job.worker))) continue;
      await requeueJob(this.db, job.id, job.worker);
    }
  }
}
