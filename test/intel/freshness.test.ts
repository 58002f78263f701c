/**
 * Freshness per vendor, end to end on SQLite and PostgreSQL against two loopback fake vendors
 * (VirusTotal and hashlookup in their real formats): a TTL hit asks nobody, a stale vendor is
 * refreshed behind the stored answer (and only it), `force` may name vendors, and each vendor's part
 * says when it was fetched.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ConfigError } from "../../src/common/settings.ts";
import { readIntelConfig } from "../../src/intel/config.ts";
import { checkVendorSettings } from "../../src/intel/services/index.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { fixture } from "../helpers/connectors.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type SimpleFake, startFakeVendor } from "../helpers/fake-vendor.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import { pollUntilDone, type TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";
import { ageStoredSource } from "../helpers/stored-sources.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const file = { super_type: "OBSERVABLE", type: "MD5", value: MD5 };
const DAY_MS = 24 * 3600 * 1000;

/** VirusTotal's file object with another count of malicious verdicts (what a later fetch would see). */
function rescored(malicious: number) {
  // biome-ignore lint/suspicious/noExplicitAny: vendor JSON.
  const obj = structuredClone(vtFixture("file")) as any;
  obj.data.attributes.last_analysis_stats.malicious = malicious;
  return obj;
}

describe("freshness settings", () => {
  it("reads INTEL_VENDOR_TTL_<ID> in seconds and refuses bad values and unknown vendors", () => {
    const config = readIntelConfig({ INTEL_VENDOR_TTL_VIRUSTOTAL: "3600", INTEL_VENDOR_TTL_OTX: "0" });
    assert.deepEqual(config.vendorTtlSeconds, { virustotal: 3600, otx: 0 });
    checkVendorSettings(config);
    assert.throws(() => readIntelConfig({ INTEL_VENDOR_TTL_VIRUSTOTAL: "1h" }), ConfigError);
    assert.throws(() => readIntelConfig({ INTEL_VENDOR_TTL_VIRUSTOTAL: "-5" }), ConfigError);
    assert.throws(
      () => checkVendorSettings(readIntelConfig({ INTEL_VENDOR_TTL_VIRUSTOTL: "60" })),
      (err: unknown) =>
        err instanceof ConfigError && /INTEL_VENDOR_TTL_VIRUSTOTL names no connector/.test(err.message),
    );
  });
});

describeOnEachDatabase("freshness per vendor", (db) => {
  let vt: FakeVendor;
  let hashlookup: SimpleFake;
  let server: TestIntelServer;
  const vtObjects: Record<string, unknown> = {};
  const ask = (body: unknown) => server.api("/api/request/", { method: "POST", body: JSON.stringify(body) });
  const hashlookupCalls = () => hashlookup.calls.length;

  const age = (vendor: string, ms: number) =>
    ageStoredSource(server.services.store, `OBSERVABLE/MD5/${MD5}`, vendor, ms);

  before(async () => {
    vtObjects[`files/${MD5}`] = vtFixture("file");
    vt = await startFakeVirusTotal(vtObjects);
    hashlookup = await startFakeVendor({
      [`/lookup/md5/${MD5}`]: { body: fixture("hashlookup", "found") },
    });
    server = await db.startIntelServer({
      env: {
        INTEL_CONNECTORS: "virustotal,hashlookup",
        INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
        INTEL_VENDOR_URL_HASHLOOKUP: hashlookup.url,
        INTEL_VENDOR_RETRIES: "0",
        INTEL_VENDOR_TTL_VIRUSTOTAL: String(24 * 3600),
      },
    });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await vt.close();
    await hashlookup.close();
  });

  it("on a miss asks every vendor once, then says when each part was fetched", async () => {
    const first = await ask(file);
    assert.equal(first.status, 201);
    await first.arrayBuffer();
    const done = await pollUntilDone(server, file);
    assert.equal(done.status, 200);
    const doc = await json(done);
    assert.deepEqual(Object.keys(doc.sources), ["hashlookup", "virustotal"]);
    for (const vendor of ["hashlookup", "virustotal"]) {
      const part = doc.sources[vendor];
      assert.equal(part.status, "ok");
      assert.match(part.fetched_at, /^\d{4}-\d\d-\d\dT/);
      assert.equal(typeof part.age_seconds, "number");
      assert.ok(part.age_seconds >= 0 && part.age_seconds < 600);
      assert.equal(part.from_cache, true, "a 200 to a POST is served from storage");
    }
    assert.equal(vt.calls.length, 1);
    assert.equal(hashlookupCalls(), 1);
  });

  it("on a TTL hit answers 200 from storage and asks no vendor", async () => {
    const before = [vt.calls.length, hashlookupCalls()];
    const hit = await ask(file);
    assert.equal(hit.status, 200);
    const doc = await json(hit);
    assert.equal(doc.sources.virustotal.status, "ok");
    assert.deepEqual([vt.calls.length, hashlookupCalls()], before);
    assert.equal(doc.root_entity.attributes.vt_score, "61/76");
  });

  it("serves stale data at once and refreshes only the stale vendor behind it", async () => {
    await age("virustotal", 2 * DAY_MS);
    vtObjects[`files/${MD5}`] = rescored(70);
    const before = [vt.calls.length, hashlookupCalls()];
    const stale = await ask(file);
    assert.equal(stale.status, 200, "stored data is served while the refresh runs");
    const staleDoc = await json(stale);
    assert.equal(staleDoc.root_entity.attributes.vt_score, "61/76");
    assert.ok(staleDoc.sources.virustotal.age_seconds >= 2 * 24 * 3600);
    // Ask again until the refresh has landed: every ask meanwhile joins the same refresh.
    let doc = staleDoc;
    const deadline = Date.now() + 20_000;
    while (doc.sources.virustotal.age_seconds >= 24 * 3600 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      const res = await ask(file);
      assert.equal(res.status, 200);
      doc = await json(res);
    }
    assert.match(doc.root_entity.attributes.vt_score, /^70\//);
    assert.ok(doc.sources.virustotal.age_seconds < 600);
    assert.deepEqual([vt.calls.length, hashlookupCalls()], [before[0]! + 1, before[1]]);
  });

  it("refreshes only the vendors `force` names, keeping the others' parts as they were", async () => {
    const stored = await json(await ask(file));
    const before = [vt.calls.length, hashlookupCalls()];
    const forced = await ask({ ...file, force: ["hashlookup"] });
    assert.equal(forced.status, 201);
    const { id } = await json(forced);
    const done = await pollUntilDone(server, file);
    assert.equal(done.status, 200);
    const doc = await json(done);
    assert.deepEqual([vt.calls.length, hashlookupCalls()], [before[0], before[1]! + 1]);
    assert.equal(doc.sources.virustotal.fetched_at, stored.sources.virustotal.fetched_at);
    assert.ok(doc.sources.hashlookup.fetched_at > stored.sources.hashlookup.fetched_at);
    const request = await json(await server.api(`/api/request/${id}/`));
    assert.deepEqual(request.asked, ["hashlookup"]);
    assert.equal(request.sources.hashlookup.from_cache, false, "this request asked it");
    assert.equal(request.sources.virustotal, undefined);
  });

  it("keeps `force: true` (Colander's boolean) refreshing every vendor", async () => {
    const before = [vt.calls.length, hashlookupCalls()];
    const forced = await ask({ ...file, force: true });
    assert.equal(forced.status, 201);
    await forced.arrayBuffer();
    assert.equal((await pollUntilDone(server, file)).status, 200);
    assert.deepEqual([vt.calls.length, hashlookupCalls()], [before[0]! + 1, before[1]! + 1]);
  });

  it("refuses a `force` that names unknown or inapplicable vendors, or is not a list of names", async () => {
    let res = await ask({ ...file, force: ["virustotal", "nope"] });
    assert.equal(res.status, 400);
    let body = await json(res);
    assert.equal(body.code, "unknown_vendor");
    assert.match(body.detail, /nope/);
    res = await ask({
      super_type: "OBSERVABLE",
      type: "DOMAIN",
      value: "example.org",
      force: ["hashlookup"],
    });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "vendor_not_applicable");
    for (const force of [[], [{ id: "virustotal" }], ["x".repeat(65)], Array(65).fill("virustotal")]) {
      res = await ask({ ...file, force });
      assert.equal(res.status, 400, JSON.stringify(force).slice(0, 40));
      body = await json(res);
      assert.ok(body.code && body.detail);
    }
  });
});
