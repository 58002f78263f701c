/**
 * What `./loupe doctor` reads from the intel database, without changing it: open a database that
 * must already exist (no SQLite file is made, nothing is migrated), the migrations not run yet,
 * and how the job queue stands.
 */
import { existsSync } from "node:fs";
import { resolveFromRoot } from "../../common/config.ts";
import { openStore, type Store } from "../store/db.ts";
import { pendingJobs } from "../store/jobs.ts";
import { pendingMigrations } from "../store/migrations.ts";

export type { Store };

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Opens the database and makes one round trip; throws when it is missing or unreachable. */
export async function openExistingStore(url: string, timeoutMs: number): Promise<Store> {
  if (url.startsWith("sqlite:") && url !== "sqlite::memory:") {
    const file = resolveFromRoot(url.slice("sqlite:".length));
    if (!existsSync(file)) throw new Error(`no database at ${file}`);
  }
  const store = await openStore(url, { migrate: false });
  try {
    await withTimeout(pendingMigrations(store.db, store.dialect), timeoutMs, "the database");
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}

/** Migrations this code knows that the database has not run (the services run them at start). */
export const migrationsNotRun = (store: Store): Promise<string[]> =>
  pendingMigrations(store.db, store.dialect);

export interface QueueStanding {
  queued: number;
  running: number;
  /** Running jobs whose lease ended more than `graceMs` ago: no live worker took them back. */
  abandoned: number;
}

export async function queueStanding(store: Store, graceMs: number, now = Date.now()): Promise<QueueStanding> {
  const rows = await pendingJobs(store.db);
  const queued = rows.filter((r) => r.status === "queued").length;
  const abandoned = rows.filter(
    (r) => r.status === "running" && r.lease_until !== null && Date.parse(r.lease_until) < now - graceMs,
  ).length;
  return { queued, running: rows.length - queued, abandoned };
}
