/**
 * Vendor quotas end to end, on SQLite and PostgreSQL, against a loopback VirusTotal that counts
 * calls: a worker's concurrent lookups share one quota without passing it and the counts reported
 * are exact; a 429's Retry-After blocks the set; the skip
 * policy answers quota_exhausted; a refused key takes its set out of rotation and the other set is
 * used. The quota windows are moved by a test clock given to the services, never waited out.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ConfigError } from "../../src/common/settings.ts";
import { readIntelConfig, vendorQuotaOverrides } from "../../src/intel/config.ts";
import { throttleOf } from "../../src/intel/connectors/http.ts";
import { connectorById } from "../../src/intel/connectors/registry.ts";
import { setLimits, vendorQuota } from "../../src/intel/domain/quota.ts";
import { enableCredentialSet, QuotaError, setCredentialSetQuota } from "../../src/intel/services/quotas.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type CountingVendor, startCountingVendor } from "../helpers/fake-quota-vendor.ts";
import { pollUntilDone, type TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

const GOOD = "good-key-0123456789";
const OTHER = "other-key-0123456789";
const md5 = (i: number) => i.toString(16).padStart(32, "0");
const ask = (i: number) => ({ super_type: "OBSERVABLE", type: "MD5", value: md5(i) });

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A clock the test moves: the quota windows slide only when it says. */
function testClock(start = Date.parse("2026-11-27T10:00:00.000Z")) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

interface VtQuota {
  remaining_minute: number | null;
  remaining_day: number | null;
  sets: {
    id: number;
    used_day: number;
    remaining_day: number | null;
    blocked_until: string | null;
    disabled_reason: string | null;
  }[];
}

async function vtQuota(server: TestIntelServer, path = "/api/modules/"): Promise<VtQuota> {
  const body = await json(await server.api(path));
  const modules = (path === "/api/modules/" ? body : body.available_modules) as {
    id: string;
    quota: VtQuota;
  }[];
  return modules.find((m) => m.id === "virustotal")!.quota;
}

/** The outcome of VirusTotal for one finished lookup. */
async function vtOutcome(server: TestIntelServer, i: number): Promise<string> {
  const res = await pollUntilDone(server, ask(i));
  const body = await json(res);
  // 502 when every vendor failed (VirusTotal is the only one here): its error is under `errors`.
  if (res.status === 502) return body.errors.virustotal;
  assert.equal(res.status, 200);
  const source = body.sources.virustotal;
  return source.error ?? source.status;
}

describe("quota settings and what vendors say of their limits", () => {
  it("reads INTEL_VENDOR_QUOTA_<ID> and refuses what it cannot read", () => {
    assert.deepEqual(
      vendorQuotaOverrides({
        INTEL_VENDOR_QUOTA_VIRUSTOTAL: "1000/50000",
        INTEL_VENDOR_QUOTA_SHODAN: " - / 20 / skip",
      }),
      {
        virustotal: { perMinute: 1000, perDay: 50000 },
        shodan: { perMinute: null, perDay: 20, policy: "skip" },
      },
    );
    for (const bad of ["0/5", "4", "4/5/later", "four/500", "4/500/skip/x"])
      assert.throws(
        () => vendorQuotaOverrides({ INTEL_VENDOR_QUOTA_OTX: bad }),
        (e: unknown) => e instanceof ConfigError && /INTEL_VENDOR_QUOTA_OTX/.test(e.message),
      );
  });

  it("takes a set's own limit over the setting over the preset, and no preset away from the vendor's API", () => {
    const vt = connectorById("virustotal")!;
    const base = readIntelConfig({});
    assert.deepEqual(vendorQuota(vt, base), { perMinute: 4, perDay: 500, policy: "wait", origin: "preset" });
    const set = readIntelConfig({ INTEL_VENDOR_QUOTA_VIRUSTOTAL: "-/9000/skip" });
    assert.deepEqual(vendorQuota(vt, set), {
      perMinute: null,
      perDay: 9000,
      policy: "skip",
      origin: "setting",
    });
    const mirror = readIntelConfig({ INTEL_VENDOR_URL_VIRUSTOTAL: "http://127.0.0.1:1" });
    assert.equal(vendorQuota(vt, mirror).origin, "none");
    assert.deepEqual(setLimits({ perMinute: 4, perDay: 500 }, { per_minute: null, per_day: 0 }), {
      perMinute: 4,
      perDay: null,
    });
  });

  it("reads Retry-After, VirusTotal's QuotaExceededError and rate limit headers", () => {
    const now = Date.parse("2026-11-24T10:00:00.000Z");
    const answer = (status: number, headers: Record<string, string>, text = "{}") => ({
      status,
      headers,
      text,
      json: () => JSON.parse(text),
    });
    assert.equal(throttleOf(answer(429, { "retry-after": "30" }), now)?.until, "2026-11-24T10:00:30.000Z");
    assert.equal(
      throttleOf(
        answer(429, {}, '{"error": {"code": "QuotaExceededError", "message": "Quota exceeded"}}'),
        now,
      )?.until,
      "2026-11-25T00:00:00.000Z",
    );
    const reset = String(now / 1000 + 90);
    assert.equal(
      throttleOf(answer(200, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }), now)?.until,
      "2026-11-24T10:01:30.000Z",
    );
    assert.equal(
      throttleOf(answer(200, { "x-rate-limit-remaining": "0", "x-rate-limit-reset-after": "17" }), now)
        ?.until,
      "2026-11-24T10:00:17.000Z",
    );
    assert.equal(
      throttleOf(answer(200, { "x-ratelimit-remaining": "3", "x-ratelimit-reset": reset }), now),
      undefined,
    );
    assert.equal(throttleOf(answer(429, { "retry-after": "soon" }), now), undefined);
  });
});

describeOnEachDatabase("vendor quotas", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  async function setUp(
    env: Record<string, string>,
    keys: string[],
    worker: boolean,
    now: () => number = Date.now,
  ) {
    const vendor: CountingVendor = await startCountingVendor([GOOD, OTHER]);
    cleanups.push(() => vendor.close());
    const databaseUrl = await db.fresh();
    const all = { INTEL_VENDOR_URL_VIRUSTOTAL: vendor.url, ...env };
    const server = await db.startIntelServer({ databaseUrl, worker, env: all, now });
    const ids = [];
    for (const key of keys)
      ids.push(await addCredentials(server.services.store.db, "virustotal", { api_key: key }));
    return { vendor, server, ids };
  }

  // Two processes reserving at once on one database: test/intel/quota-store.test.ts. Here one worker
  // runs 8 lookups at once (8 reservations racing in the database) under the service's own clock.
  it("a worker running 8 lookups at once never passes a 4-per-minute quota, and reports exact counts", async () => {
    const clock = testClock();
    const { vendor, server } = await setUp(
      {
        INTEL_VENDOR_QUOTA_VIRUSTOTAL: "4/1000",
        INTEL_QUOTA_MAX_WAIT_SECONDS: "600",
        INTEL_WORKER_CONCURRENCY: "8",
      },
      [GOOD],
      true,
      clock.now,
    );
    const subjects = 40;
    for (let i = 0; i < subjects; i++) {
      const res = await server.api("/api/request/", { method: "POST", body: JSON.stringify(ask(i)) });
      assert.equal(res.status, 201);
    }
    let minutes = 0;
    await waitFor(async () => {
      assert.ok(vendor.calls.length <= 4 * (minutes + 1), `more than 4 calls in minute ${minutes}`);
      const rows = await server.services.store.db.selectFrom("requests").select("status").execute();
      const done = rows.filter((r) => r.status === "SUCCEEDED").length;
      // A full minute whose calls are over: the next one starts (the lookups wait for a slot until
      // then). Moved only once the calls ended, since a call ends a minute after it ends, not after
      // it starts: on a clock that stands still, one moved while a call is in flight keeps it counting.
      if (vendor.calls.length === 4 * (minutes + 1) && done === vendor.calls.length) {
        clock.advance(60_000);
        minutes++;
      }
      return rows.length === subjects && done === subjects;
    }, 300_000);
    assert.equal(vendor.calls.length, subjects);
    const quota = await vtQuota(server);
    assert.equal(quota.remaining_day, 1000 - subjects, "the day window holds every call");
    assert.equal(quota.sets[0]?.used_day, subjects);
    assert.equal((await vtQuota(server, "/api/status/now/")).remaining_day, 1000 - subjects);
    clock.advance(86_400_000);
    assert.equal((await vtQuota(server)).remaining_day, 1000, "a day later the calls have left the window");
  });

  it("honours Retry-After: the set is blocked until then, and the skip policy answers quota_exhausted", async () => {
    const { vendor, server } = await setUp(
      { INTEL_QUOTA_POLICY: "skip", INTEL_VENDOR_RETRIES: "0" },
      [GOOD],
      true,
    );
    vendor.retryAfter = "600";
    vendor.throttled = 1;
    assert.match(await vtOutcome(server, 1), /^rate_limited/);
    const blocked = (await vtQuota(server)).sets[0]?.blocked_until ?? "";
    assert.ok(Date.parse(blocked) > Date.now() + 500_000, `blocked until ${blocked}`);
    assert.match(await vtOutcome(server, 2), /^quota_exhausted: .*vendor asked to wait/);
    assert.equal(vendor.calls.length, 1, "no call reached the vendor while it was blocked");
  });

  it("never lets a hostile Retry-After block a set past the day window", async () => {
    const { vendor, server } = await setUp(
      { INTEL_QUOTA_POLICY: "skip", INTEL_VENDOR_RETRIES: "0" },
      [GOOD],
      true,
    );
    for (const [i, retryAfter] of [
      "999999999",
      "1e400",
      "99999999999999999",
      "Fri, 31 Dec 9999 23:59:59 GMT",
    ].entries()) {
      vendor.retryAfter = retryAfter;
      vendor.throttled = 1;
      await server.services.store.db.deleteFrom("quota_state").execute();
      assert.match(await vtOutcome(server, 10 + i), /^rate_limited/, retryAfter);
      const blocked = (await vtQuota(server)).sets[0]?.blocked_until;
      if (blocked)
        assert.ok(Date.parse(blocked) <= Date.now() + 86_400_000, `${retryAfter}: blocked until ${blocked}`);
    }
    assert.equal((await server.api("/api/modules/")).status, 200, "the service still answers");
  });

  it("waits out a short Retry-After under the wait policy and then asks again", async () => {
    const { vendor, server } = await setUp({ INTEL_VENDOR_RETRIES: "1" }, [GOOD], true);
    vendor.retryAfter = "2";
    vendor.throttled = 1;
    assert.equal(await vtOutcome(server, 1), "not_found");
    assert.equal(vendor.calls.length, 2);
    assert.ok(
      vendor.calls[1]!.at - vendor.calls[0]!.at >= 2000,
      "the second call came after the vendor's time",
    );
  });

  it("skips with quota_exhausted when the quota is used up under the skip policy, until the minute passes", async () => {
    const clock = testClock();
    const { vendor, server } = await setUp(
      { INTEL_VENDOR_QUOTA_VIRUSTOTAL: "2/-/skip" },
      [GOOD],
      true,
      clock.now,
    );
    assert.equal(await vtOutcome(server, 1), "not_found");
    assert.equal(await vtOutcome(server, 2), "not_found");
    assert.match(await vtOutcome(server, 3), /^quota_exhausted: .*per-minute quota is used up/);
    assert.equal(vendor.calls.length, 2);
    assert.equal((await vtQuota(server)).remaining_minute, 0);
    clock.advance(60_000);
    assert.equal((await vtQuota(server)).remaining_minute, 2, "the minute passed: its calls are free again");
    assert.equal(await vtOutcome(server, 4), "not_found");
    assert.equal(vendor.calls.length, 3);
  });

  it("rotates to the set with the most quota left, each set under its own quota", async () => {
    const { vendor, server, ids } = await setUp(
      { INTEL_VENDOR_QUOTA_VIRUSTOTAL: "2/-/skip" },
      [GOOD, OTHER],
      true,
      testClock().now,
    );
    const { db } = server.services.store;
    assert.equal(await setCredentialSetQuota(db, ids[0]!, { perMinute: 1, perDay: null }), true);
    assert.equal(await setCredentialSetQuota(db, ids[1]!, { perMinute: 3, perDay: null }), true);
    await assert.rejects(setCredentialSetQuota(db, ids[0]!, { perMinute: -1, perDay: null }), QuotaError);
    await assert.rejects(setCredentialSetQuota(db, ids[0]!, { perMinute: 1.5, perDay: null }), QuotaError);
    assert.equal(await setCredentialSetQuota(db, 999_999, { perMinute: 1, perDay: null }), false);
    for (let i = 1; i <= 4; i++) assert.equal(await vtOutcome(server, i), "not_found");
    // 1 and 3 left: the second set; 1 and 2: still; 1 and 1: the one used longest ago; then the second.
    assert.deepEqual(
      vendor.calls.map((c) => c.key),
      [OTHER, OTHER, GOOD, OTHER],
    );
    assert.match(await vtOutcome(server, 5), /^quota_exhausted/);
    const quota = await vtQuota(server);
    assert.deepEqual(
      quota.sets.map((s) => s.remaining_day),
      [null, null],
    );
    assert.equal(quota.remaining_minute, 0);
  });

  it("takes a set whose key is refused out of rotation, uses the other, and re-enables it on demand", async () => {
    const { vendor, server, ids } = await setUp({}, ["refused-key-000000", OTHER], true);
    assert.equal(await vtOutcome(server, 1), "not_found");
    assert.deepEqual(
      vendor.calls.map((c) => c.key),
      ["refused-key-000000", OTHER],
    );
    const [refused, other] = (await vtQuota(server)).sets;
    assert.match(refused?.disabled_reason ?? "", /invalid_credentials/);
    assert.equal(other?.disabled_reason, null);
    assert.equal(await vtOutcome(server, 2), "not_found");
    assert.equal(vendor.calls.at(-1)?.key, OTHER, "the refused set stays out of rotation");
    assert.equal(vendor.calls.length, 3);
    assert.equal(await enableCredentialSet(server.services.store.db, ids[0]!), true);
    assert.equal((await vtQuota(server)).sets[0]?.disabled_reason, null);
    await server.services.store.db.deleteFrom("vendor_credentials").where("id", "=", ids[1]!).execute();
    assert.match(
      await vtOutcome(server, 3),
      /^invalid_credentials/,
      "the last set refused: the vendor's reason",
    );
    assert.equal((await vtQuota(server)).sets.length, 1);
  });
});
