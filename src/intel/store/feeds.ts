/**
 * Local feed copies' SQL: a refresh is claimed per feed by a conditional update (one worker
 * downloads it, however many run), and a new copy replaces the old one's entries in one
 * transaction, so a lookup sees the old copy or the new one, never half of each.
 */
import type { Kysely } from "kysely";
import type { FeedCopiesTable } from "./feed-schema.ts";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

type Db = Kysely<Database>;

export type FeedCopy = FeedCopiesTable;

export interface NewFeedEntry {
  kind: string;
  value: string;
  low?: number;
  high?: number;
  info: string;
}

/** Rows per INSERT: 6 parameters each stays far below both databases' limits. */
const BATCH = 500;

/**
 * Takes the refresh of feed `id` for this caller unless one started after `staleBefore` (ISO):
 * the feed's row as it was, or undefined when another worker has it or it is fresh enough.
 */
export async function claimRefresh(
  db: Db,
  feed: { id: string; name: string; url: string },
  staleBefore: string,
): Promise<FeedCopy | undefined> {
  const now = nowIso();
  await db
    .insertInto("feed_copies")
    .values({ id: feed.id, name: feed.name, url: feed.url, entries: 0, meta: "{}" })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  const before = await db.selectFrom("feed_copies").selectAll().where("id", "=", feed.id).executeTakeFirst();
  if (!before) return undefined;
  const claimed = await db
    .updateTable("feed_copies")
    .set({ attempted_at: now, name: feed.name, url: feed.url })
    .where("id", "=", feed.id)
    .where((eb) => eb.or([eb("attempted_at", "is", null), eb("attempted_at", "<", staleBefore)]))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1 ? before : undefined;
}

/** The source answered 304: the copy held is confirmed. */
export async function recordNotModified(db: Db, id: string): Promise<void> {
  await db
    .updateTable("feed_copies")
    .set({ checked_at: nowIso(), error: null })
    .where("id", "=", id)
    .execute();
}

/** The refresh failed: the copy held stays, with why. */
export async function recordFailure(db: Db, id: string, error: string): Promise<void> {
  await db
    .updateTable("feed_copies")
    .set({ error: error.slice(0, 1000) })
    .where("id", "=", id)
    .execute();
}

/** A new copy: its entries replace the old ones, with its validators and meta. */
export async function replaceCopy(
  db: Db,
  id: string,
  copy: { entries: NewFeedEntry[]; etag: string | null; lastModified: string | null; meta?: string },
): Promise<void> {
  const now = nowIso();
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("feed_entries").where("feed", "=", id).execute();
    for (let i = 0; i < copy.entries.length; i += BATCH)
      await tx
        .insertInto("feed_entries")
        .values(
          copy.entries.slice(i, i + BATCH).map((e) => ({
            feed: id,
            kind: e.kind,
            value: e.value,
            low: e.low ?? null,
            high: e.high ?? null,
            info: e.info,
          })),
        )
        .execute();
    await tx
      .updateTable("feed_copies")
      .set({
        etag: copy.etag,
        last_modified: copy.lastModified,
        fetched_at: now,
        checked_at: now,
        error: null,
        entries: copy.entries.length,
        ...(copy.meta === undefined ? {} : { meta: copy.meta }),
      })
      .where("id", "=", id)
      .execute();
  });
}

export interface FeedHit {
  feed: string;
  name: string;
  kind: string;
  value: string;
  info: string;
  fetched_at: string | null;
  checked_at: string | null;
}

/**
 * Entries of feeds whose id starts with `prefix` holding one of `values` of one of `kinds`, and, for
 * an IPv4 address (`ipv4`, as a number), the CIDR entries containing it.
 */
export async function findEntries(
  db: Db,
  prefix: string,
  kinds: string[],
  values: string[],
  ipv4?: number,
): Promise<FeedHit[]> {
  if (values.length === 0 && ipv4 === undefined) return [];
  return db
    .selectFrom("feed_entries as e")
    .innerJoin("feed_copies as c", "c.id", "e.feed")
    .select(["e.feed", "c.name", "e.kind", "e.value", "e.info", "c.fetched_at", "c.checked_at"])
    .where("e.feed", "like", `${prefix}%`)
    .where((eb) => {
      const exact = eb.and([eb("e.kind", "in", kinds), eb("e.value", "in", values.length ? values : [""])]);
      if (ipv4 === undefined) return exact;
      const range = eb.and([eb("e.kind", "=", "CIDR"), eb("e.low", "<=", ipv4), eb("e.high", ">=", ipv4)]);
      return eb.or([exact, range]);
    })
    .orderBy("e.feed")
    .limit(200)
    .execute();
}

/** Every feed copy, for the Status page and the refresher. */
export async function listCopies(db: Db): Promise<FeedCopy[]> {
  return db.selectFrom("feed_copies").selectAll().orderBy("id").execute();
}

/** Forgets copies (and their entries) no longer listed: an MVT collection taken out of the index. */
export async function dropCopies(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("feed_entries").where("feed", "in", ids).execute();
    await tx.deleteFrom("feed_copies").where("id", "in", ids).execute();
  });
}
