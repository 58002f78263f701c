/**
 * Retention: when each subject was last asked about, and the sweep that forgets subjects nobody
 * asked about within the window. The graph is shared between subjects, so nothing is deleted that
 * is reachable (through relations, any depth) from a subject asked within the window or was
 * written within it: what a vendor returned for a live subject always stays.
 */
import { type Kysely, sql } from "kysely";
import type { Logger } from "../../common/logger.ts";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

/** A subject asked again within this long is not written again: retention counts in days. */
const ASK_RECORD_EVERY_MS = 3_600_000;
const MAX_REMEMBERED = 10_000;

/**
 * Records that a subject was asked about (a 200 answer too). Per process, a subject is written at
 * most once an hour, so the hot path of cached answers stays a read.
 */
export function askRecorder(db: Kysely<Database>) {
  const recorded = new Map<string, number>();
  /** True when it wrote. */
  return async (subjectKey: string): Promise<boolean> => {
    const now = Date.now();
    const last = recorded.get(subjectKey);
    if (last !== undefined && now - last < ASK_RECORD_EVERY_MS) return false;
    if (recorded.size >= MAX_REMEMBERED) recorded.clear();
    recorded.set(subjectKey, now);
    const askedAt = nowIso();
    await db
      .insertInto("subject_asks")
      .values({ subject_key: subjectKey, asked_at: askedAt })
      .onConflict((oc) => oc.column("subject_key").doUpdateSet({ asked_at: askedAt }))
      .execute();
    return true;
  };
}

export interface SweepCounts {
  subjects: number;
  requests: number;
  entities: number;
  relations: number;
  events: number;
}

/** Subjects last asked before the cutoff, with no lookup queued or running. */
const stale = (cutoff: string) => sql`select a.subject_key from subject_asks a
  where a.asked_at < ${cutoff} and not exists (select 1 from requests q
    where q.subject_key = a.subject_key and q.status in ('ENQUEUED', 'PROCESSING'))`;

/**
 * Entities to keep: the roots of every remaining lookup and everything written since the cutoff,
 * then everything reachable from them through relations (either direction, any depth).
 */
const withLive = (cutoff: string) => sql`with recursive seeds(id) as (
    select root_entity from lookups where root_entity is not null
    union select id from entities where updated_at >= ${cutoff}
    union select obj_from from relations where created_at >= ${cutoff}
    union select obj_to from relations where created_at >= ${cutoff}
    union select involved_entity from events where updated_at >= ${cutoff}
  ), live(id) as (
    select id from seeds
    union select case when r.obj_from = live.id then r.obj_to else r.obj_from end
      from relations r join live on r.obj_from = live.id or r.obj_to = live.id
  )`;

async function affected(db: Kysely<Database>, query: ReturnType<typeof sql>): Promise<number> {
  const result = await query.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** Forgets subjects not asked about for `days` days and what only they reached. */
export async function sweepRetention(
  db: Kysely<Database>,
  days: number,
  now: Date = new Date(),
): Promise<SweepCounts> {
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
  await affected(db, sql`delete from lookups where subject_key in (${stale(cutoff)})`);
  // Finished requests older than the window go too (forced refreshes pile up), except the one a
  // lookup still names: its per-vendor statuses are what GET /api/request/<id>/ shows.
  const oldRequests = sql`select id from requests where created_at < ${cutoff}
    and status not in ('ENQUEUED', 'PROCESSING') and id not in (select request_id from lookups)`;
  await affected(db, sql`delete from jobs where request_id in (${oldRequests})`);
  await affected(db, sql`delete from request_raw_answers where request_id in (${oldRequests})`);
  const requests = await affected(db, sql`delete from requests where id in (${oldRequests})`);
  const subjects = await affected(db, sql`delete from subject_asks where subject_key in (${stale(cutoff)})`);
  const live = withLive(cutoff);
  const events = await affected(
    db,
    sql`${live} delete from events where involved_entity not in (select id from live)`,
  );
  const relations = await affected(
    db,
    sql`${live} delete from relations where obj_from not in (select id from live)
      or obj_to not in (select id from live)`,
  );
  const entities = await affected(
    db,
    sql`${live} delete from entities where id not in (select id from live)`,
  );
  return { subjects, requests, entities, relations, events };
}

/** Sweeps now and every `everyMinutes`; a failed sweep is logged and tried again next time. Returns a stop function. */
export function scheduleRetention(
  db: Kysely<Database>,
  days: number,
  everyMinutes: number,
  logger?: Logger,
): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const counts = await sweepRetention(db, days);
      if (counts.subjects + counts.entities > 0) logger?.info({ retention: counts }, "retention sweep");
    } catch (err) {
      if (logger) logger.warn({ err }, "retention sweep failed");
      else process.emitWarning(`retention sweep failed: ${String(err)}`);
    } finally {
      running = false;
    }
  };
  const first = setTimeout(run, 1_000);
  const timer = setInterval(run, everyMinutes * 60_000);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
