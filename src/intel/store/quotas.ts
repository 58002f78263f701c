/**
 * Vendor quotas kept in the database, so that every API and worker process shares them (no
 * counter lives in a process). A call reserves a slot in a transaction that first locks the
 * (vendor, credential set) row — an upsert, which takes a row lock on PostgreSQL; SQLite
 * transactions take the write lock when they begin — then counts the calls of the sliding minute
 * window and of the day. A vendor's Retry-After blocks the set until the time it gave.
 *
 * A call counts in the minute window from its reservation until one window after it finished
 * (until `holdMs` + one window while in flight, in case its process dies), so no two calls more
 * than the limit apart ever reach the vendor within one window, however long each took.
 */
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "./schema.ts";

type Db = Kysely<Database>;

/** Whose quota: a vendor and one of its credential sets (0 for a connector that needs no key). */
export interface QuotaKey {
  vendor: string;
  credentialSet: number;
}

/** Calls allowed per minute window and per day window; null = no limit. */
export interface QuotaLimits {
  perMinute: number | null;
  perDay: number | null;
}

/** The windows' lengths (a minute and a day, shorter in tests). */
export interface QuotaWindows {
  minuteMs: number;
  dayMs: number;
}

export type Reservation =
  | { ok: true; callId: number }
  | { ok: false; reason: "minute" | "day" | "blocked"; retryAt: string; detail: string | null };

export interface QuotaUsage {
  usedMinute: number;
  usedDay: number;
  blockedUntil: string | null;
  blockedReason: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Reserves one call for `key` when neither window is full and no Retry-After block holds it;
 * otherwise says why and when to try again. `at` is the time to judge by (now, except in tests).
 */
export async function reserveCall(
  db: Db,
  key: QuotaKey,
  limits: QuotaLimits,
  windows: QuotaWindows,
  opts: { holdMs: number; at?: number },
): Promise<Reservation> {
  const at = opts.at ?? Date.now();
  return db.transaction().execute(async (trx): Promise<Reservation> => {
    const state = await lockState(trx, key);
    if (state.blocked_until && state.blocked_until > iso(at))
      return { ok: false, reason: "blocked", retryAt: state.blocked_until, detail: state.blocked_reason };
    await trx
      .deleteFrom("quota_calls")
      .where("vendor", "=", key.vendor)
      .where("credential_set", "=", key.credentialSet)
      .where("reserved_at", "<=", iso(at - windows.dayMs))
      .where("counts_until", "<=", iso(at))
      .execute();
    const counts = await countWindows(trx, key, windows, at);
    if (limits.perMinute !== null && counts.minute >= limits.perMinute)
      return { ok: false, reason: "minute", retryAt: counts.minuteFreesAt ?? iso(at), detail: null };
    if (limits.perDay !== null && counts.day >= limits.perDay) {
      const first = counts.dayFirst ? Date.parse(counts.dayFirst) : at;
      return { ok: false, reason: "day", retryAt: iso(first + windows.dayMs), detail: null };
    }
    const row = await trx
      .insertInto("quota_calls")
      .values({
        vendor: key.vendor,
        credential_set: key.credentialSet,
        reserved_at: iso(at),
        counts_until: iso(at + opts.holdMs + windows.minuteMs),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return { ok: true, callId: Number(row.id) };
  });
}

/** The block in force on `key` at `at` (a vendor's Retry-After), as a refusal; undefined when none. */
export async function blockOn(db: Db, key: QuotaKey, at = Date.now()): Promise<Reservation | undefined> {
  const row = await db
    .selectFrom("quota_state")
    .select(["blocked_until", "blocked_reason"])
    .where("vendor", "=", key.vendor)
    .where("credential_set", "=", key.credentialSet)
    .where("blocked_until", ">", iso(at))
    .executeTakeFirst();
  return row?.blocked_until
    ? { ok: false, reason: "blocked", retryAt: row.blocked_until, detail: row.blocked_reason }
    : undefined;
}

/** The call is over: it counts for one more minute window from now. */
export async function finishCall(db: Db, callId: number, windows: QuotaWindows, at = Date.now()) {
  await db
    .updateTable("quota_calls")
    .set({ counts_until: iso(at + windows.minuteMs) })
    .where("id", "=", callId)
    .where("counts_until", ">", iso(at + windows.minuteMs))
    .execute();
}

/** Locks the key's row (creating it) for the transaction and reads its block. */
async function lockState(trx: Transaction<Database>, key: QuotaKey) {
  return trx
    .insertInto("quota_state")
    .values({
      vendor: key.vendor,
      credential_set: key.credentialSet,
      blocked_until: null,
      blocked_reason: null,
    })
    .onConflict((oc) =>
      oc.columns(["vendor", "credential_set"]).doUpdateSet((eb) => ({ vendor: eb.ref("excluded.vendor") })),
    )
    .returning(["blocked_until", "blocked_reason"])
    .executeTakeFirstOrThrow();
}

async function countWindows(trx: Transaction<Database>, key: QuotaKey, windows: QuotaWindows, at: number) {
  const now = iso(at);
  const row = await trx
    .selectFrom("quota_calls")
    .select((eb) => [
      eb.fn.countAll().as("day"),
      eb.fn.min("reserved_at").as("day_first"),
      sql<string | number | null>`sum(case when counts_until > ${now} then 1 else 0 end)`.as("minute"),
      sql<string | null>`min(case when counts_until > ${now} then counts_until end)`.as("minute_frees_at"),
    ])
    .where("vendor", "=", key.vendor)
    .where("credential_set", "=", key.credentialSet)
    .where("reserved_at", ">", iso(at - windows.dayMs))
    .executeTakeFirstOrThrow();
  return {
    day: Number(row.day),
    dayFirst: row.day_first as string | null,
    minute: Number(row.minute ?? 0),
    minuteFreesAt: row.minute_frees_at,
  };
}

/** Blocks the key until `until` (a vendor's Retry-After); a later block already held is kept. */
export async function blockUntil(db: Db, key: QuotaKey, until: string, reason: string): Promise<void> {
  await db
    .insertInto("quota_state")
    .values({
      vendor: key.vendor,
      credential_set: key.credentialSet,
      blocked_until: until,
      blocked_reason: reason,
    })
    .onConflict((oc) =>
      oc
        .columns(["vendor", "credential_set"])
        .doUpdateSet({ blocked_until: until, blocked_reason: reason })
        .where((eb) =>
          eb.or([eb("quota_state.blocked_until", "is", null), eb("quota_state.blocked_until", "<", until)]),
        ),
    )
    .execute();
}

const usageKey = (vendor: string, credentialSet: number) => `${vendor}/${credentialSet}`;

/**
 * Calls counted now in each window and the blocks in force, for every key that has any (of one
 * vendor, when named), keyed "vendor/credentialSet".
 */
export async function quotaUsage(
  db: Db,
  windows: QuotaWindows,
  opts: { vendor?: string; at?: number } = {},
): Promise<Map<string, QuotaUsage>> {
  const at = opts.at ?? Date.now();
  const now = iso(at);
  let calls = db
    .selectFrom("quota_calls")
    .select((eb) => [
      "vendor",
      "credential_set",
      eb.fn.countAll().as("day"),
      sql<string | number | null>`sum(case when counts_until > ${now} then 1 else 0 end)`.as("minute"),
    ])
    .where("reserved_at", ">", iso(at - windows.dayMs))
    .groupBy(["vendor", "credential_set"]);
  let blocks = db.selectFrom("quota_state").selectAll().where("blocked_until", ">", now);
  if (opts.vendor) {
    calls = calls.where("vendor", "=", opts.vendor);
    blocks = blocks.where("vendor", "=", opts.vendor);
  }
  const out = new Map<string, QuotaUsage>();
  const entry = (vendor: string, set: number): QuotaUsage => {
    const k = usageKey(vendor, set);
    const found = out.get(k) ?? { usedMinute: 0, usedDay: 0, blockedUntil: null, blockedReason: null };
    out.set(k, found);
    return found;
  };
  for (const r of await calls.execute()) {
    const e = entry(r.vendor, Number(r.credential_set));
    e.usedDay = Number(r.day);
    e.usedMinute = Number(r.minute ?? 0);
  }
  for (const r of await blocks.execute()) {
    const e = entry(r.vendor, Number(r.credential_set));
    e.blockedUntil = r.blocked_until;
    e.blockedReason = r.blocked_reason;
  }
  return out;
}

/** The usage of one key in a map from `quotaUsage` (none counted: all zero). */
export function usageOf(usage: Map<string, QuotaUsage>, key: QuotaKey): QuotaUsage {
  return (
    usage.get(usageKey(key.vendor, key.credentialSet)) ?? {
      usedMinute: 0,
      usedDay: 0,
      blockedUntil: null,
      blockedReason: null,
    }
  );
}
