/**
 * The database-backed quota counter, on SQLite and PostgreSQL: two processes on one database
 * reserving at once never pass a limit, windows free their slots, and a Retry-After block holds a
 * set until its time.
 */
import assert from "node:assert/strict";
import { before, it } from "node:test";
import type { Store } from "../../src/intel/store/db.ts";
import {
  blockUntil,
  finishCall,
  type QuotaKey,
  type QuotaLimits,
  quotaUsage,
  reserveCall,
  usageOf,
} from "../../src/intel/store/quotas.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { reserveInProcess } from "../helpers/quota-reserver.ts";

const windows = { minuteMs: 60_000, dayMs: 86_400_000 };
const hold = { holdMs: 30_000 };
const T0 = Date.parse("2026-11-24T10:00:00.000Z");

describeOnEachDatabase("quota counter", (db) => {
  let store: Store;
  before(async () => {
    store = await db.store();
  });

  /** Two processes making 10 reservations each at `at`, all at once; the ids granted. */
  async function raceProcesses(key: QuotaKey, limits: QuotaLimits, at: number): Promise<number[]> {
    const job = { url: db.url, key, limits, windows, at, count: 10 };
    return (await Promise.all([reserveInProcess(job), reserveInProcess(job)])).flat();
  }

  /** 20 reservations at `at` through this process's store, all at once; the ids granted. */
  async function race(key: QuotaKey, limits: QuotaLimits, at: number): Promise<number[]> {
    const all = await Promise.all(
      Array.from({ length: 20 }, () => reserveCall(store.db, key, limits, windows, { ...hold, at })),
    );
    return all.flatMap((r) => (r.ok ? [r.callId] : []));
  }

  it("grants exactly the per-minute limit to two processes reserving at once", async () => {
    const key = { vendor: "virustotal", credentialSet: 1 };
    const limits = { perMinute: 4, perDay: 500 };
    assert.equal((await raceProcesses(key, limits, T0)).length, 4);
    const refused = await reserveCall(store.db, key, limits, windows, { ...hold, at: T0 + 1000 });
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.reason, "minute");
    // In flight, a call counts until its hold and one window have passed.
    assert.equal(!refused.ok && refused.retryAt, new Date(T0 + 90_000).toISOString());
    const usage = usageOf(await quotaUsage(store.db, windows, { at: T0 + 1000 }), key);
    assert.deepEqual(usage, { usedMinute: 4, usedDay: 4, blockedUntil: null, blockedReason: null });
  });

  it("frees a slot one window after its call finished, and keeps counting the day", async () => {
    const key = { vendor: "virustotal", credentialSet: 2 };
    const limits = { perMinute: 4, perDay: 6 };
    const granted = await race(key, limits, T0);
    assert.equal(granted.length, 4);
    await finishCall(store.db, granted[0]!, windows, T0 + 5000);
    await finishCall(store.db, granted[1]!, windows, T0 + 5000);
    assert.equal((await race(key, limits, T0 + 64_000)).length, 0, "the window is not over yet");
    assert.equal((await race(key, limits, T0 + 65_000)).length, 2, "two finished calls freed two slots");
    const full = await reserveCall(store.db, key, limits, windows, { ...hold, at: T0 + 200_000 });
    assert.equal(!full.ok && full.reason, "day");
    assert.equal(!full.ok && full.retryAt, new Date(T0 + windows.dayMs).toISOString());
    const usage = usageOf(
      await quotaUsage(store.db, windows, { vendor: "virustotal", at: T0 + 200_000 }),
      key,
    );
    assert.deepEqual([usage.usedMinute, usage.usedDay], [0, 6]);
    assert.equal((await race(key, limits, T0 + windows.dayMs + 1)).length, 4, "a day later");
  });

  it("keeps the limits of each set and vendor apart", async () => {
    const limits = { perMinute: 3, perDay: null };
    const counts = await Promise.all([
      race({ vendor: "shodan", credentialSet: 1 }, limits, T0),
      race({ vendor: "shodan", credentialSet: 2 }, limits, T0),
      race({ vendor: "otx", credentialSet: 1 }, { perMinute: null, perDay: null }, T0),
    ]);
    assert.deepEqual(
      counts.map((c) => c.length),
      [3, 3, 20],
    );
  });

  it("holds a blocked set until the vendor's time, and keeps the later of two blocks", async () => {
    const key = { vendor: "abuseipdb", credentialSet: 7 };
    const limits = { perMinute: null, perDay: null };
    const until = new Date(T0 + 30_000).toISOString();
    await blockUntil(store.db, key, until, "rate_limited: Retry-After 30");
    await blockUntil(store.db, key, new Date(T0 + 10_000).toISOString(), "earlier");
    const held = await reserveCall(store.db, key, limits, windows, { ...hold, at: T0 });
    assert.deepEqual(held, {
      ok: false,
      reason: "blocked",
      retryAt: until,
      detail: "rate_limited: Retry-After 30",
    });
    const usage = usageOf(await quotaUsage(store.db, windows, { at: T0 }), key);
    assert.equal(usage.blockedUntil, until);
    assert.equal((await reserveCall(store.db, key, limits, windows, { ...hold, at: T0 + 30_001 })).ok, true);
  });
});
