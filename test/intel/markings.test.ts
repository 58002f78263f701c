/**
 * TLP/PAP gating end to end on SQLite and PostgreSQL: a fake public vendor (VirusTotal) and a fake
 * MISP instance of the user's own, both on loopback in their real formats. From AMBER up a subject
 * never reaches the public vendor unless INTEL_TLP_ALLOW allows it; the result lists the skip; the
 * subject's entity keeps the strictest TLP; a request never grows to vendors its asker may not reach.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ConfigError } from "../../src/common/settings.ts";
import { readIntelConfig } from "../../src/intel/config.ts";
import { startWorker } from "../../src/intel/server.ts";
import { checkVendorSettings } from "../../src/intel/services/index.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { fixture } from "../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../helpers/fake-vendor.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY } from "../helpers/fake-virustotal.ts";
import {
  type DbKind,
  freshDatabase,
  pollUntilDone,
  postgresSkipReason,
  startIntelServer,
  type TestIntelServer,
} from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";
import { ageStoredSource } from "../helpers/stored-sources.ts";

const md5 = (n: number) => n.toString(16).padStart(32, "a");
const file = (value: string, extra: Record<string, unknown> = {}) => ({
  super_type: "OBSERVABLE",
  type: "MD5",
  value,
  ...extra,
});
const DAY_MS = 24 * 3600 * 1000;

describe("TLP/PAP settings", () => {
  it("reads defaults and vendor:LEVEL allowances, and refuses bad levels and unknown vendors", () => {
    const config = readIntelConfig({
      INTEL_DEFAULT_TLP: "amber",
      INTEL_TLP_ALLOW: "virustotal:AMBER+STRICT, otx:green",
    });
    assert.equal(config.defaultTlp, "AMBER");
    assert.equal(config.defaultPap, "CLEAR");
    assert.deepEqual(config.tlpAllow, { virustotal: "AMBER+STRICT", otx: "GREEN" });
    checkVendorSettings(config);
    for (const env of [
      { INTEL_DEFAULT_TLP: "PINK" },
      { INTEL_TLP_ALLOW: "virustotal" },
      { INTEL_PAP_ALLOW: "virustotal:BLACK" },
    ])
      assert.throws(() => readIntelConfig(env), ConfigError, JSON.stringify(env));
    assert.throws(
      () => checkVendorSettings(readIntelConfig({ INTEL_TLP_ALLOW: "virustotl:AMBER" })),
      /INTEL_TLP_ALLOW names no connector: virustotl/,
    );
  });
});

for (const kind of ["sqlite", "postgres"] as DbKind[]) {
  describe(`TLP/PAP gating on ${kind}`, {
    skip: kind === "postgres" ? await postgresSkipReason() : false,
  }, () => {
    let vt: FakeVendor;
    let misp: SimpleFake;
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    let server: TestIntelServer;
    const ask = (body: unknown) =>
      server.api("/api/request/", { method: "POST", body: JSON.stringify(body) });
    /** VirusTotal calls about one hash: the only count that matters for that subject. */
    const vtCallsAbout = (value: string) => vt.calls.filter((c) => c.includes(value)).length;
    const mispCalls = () => misp.calls.length;

    before(async () => {
      vt = await startFakeVirusTotal({});
      misp = await startFakeVendor({ "/attributes/restSearch": () => ({ body: fixture("misp", "empty") }) });
      db = await freshDatabase(kind);
      server = await startIntelServer({
        databaseUrl: db.url,
        worker: false,
        env: {
          INTEL_CONNECTORS: "virustotal,misp",
          INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
          INTEL_VENDOR_RETRIES: "0",
          INTEL_TLP_ALLOW: "virustotal:AMBER",
        },
      });
      await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
      await addCredentials(server.services.store.db, "misp", { api_key: "misp-key", url: misp.url });
    });
    after(async () => {
      await server.close();
      await vt.close();
      await misp.close();
      await db.drop();
    });

    // Runs first, with no worker yet: requests stay queued, so which one each ask joins is certain.
    it("never widens a request: a RED ask and a CLEAR ask of one subject get separate requests", async () => {
      const value = md5(1);
      const red = await ask(file(value, { tlp: "RED", force: true }));
      assert.equal(red.status, 201);
      const redId = (await json(red)).id;
      const clear = await ask(file(value, { force: true }));
      assert.equal(clear.status, 201);
      const clearId = (await json(clear)).id;
      assert.notEqual(clearId, redId, "the CLEAR ask did not join (and so widen) the RED request");
      const again = await ask(file(value, { tlp: "RED", force: true }));
      assert.equal((await json(again)).id, redId, "an ask that may reach the same vendors joins");
      const redRequest = await json(await server.api(`/api/request/${redId}/`));
      assert.deepEqual(redRequest.asked, ["misp"]);
      assert.equal(redRequest.tlp, "RED");
      assert.deepEqual(redRequest.sources.virustotal, {
        status: "skipped",
        reason: "tlp",
        error: null,
        fetched_at: null,
        age_seconds: null,
        from_cache: false,
      });
      assert.deepEqual((await json(await server.api(`/api/request/${clearId}/`))).asked, [
        "misp",
        "virustotal",
      ]);
      startWorker(server.services);
      for (const id of [redId, clearId]) assert.equal(await finalStatus(id), "SUCCEEDED");
      const done = await pollUntilDone(server, file(value, { tlp: "RED" }));
      assert.equal(done.status, 200);
      assert.equal(vtCallsAbout(value), 1, "VirusTotal heard of it once: from the CLEAR request");
      assert.equal((await json(done)).root_entity.tlp, "RED");
    });

    it("never sends a RED subject to a public vendor, asks the user's own MISP, and lists the skip", async () => {
      const value = md5(2);
      const mispBefore = mispCalls();
      const first = await ask(file(value, { tlp: "RED" }));
      assert.equal(first.status, 201, "MISP is still asked");
      await first.arrayBuffer();
      assert.equal((await pollUntilDone(server, file(value, { tlp: "RED" }))).status, 200);
      const forced = await ask(file(value, { tlp: "RED", force: true }));
      assert.equal(forced.status, 201);
      await forced.arrayBuffer();
      assert.equal((await pollUntilDone(server, file(value, { tlp: "RED" }))).status, 200);
      const onlyVt = await ask(file(value, { tlp: "RED", force: ["virustotal"] }));
      assert.equal(onlyVt.status, 201, "a request that may ask nobody still follows the protocol");
      const { id } = await json(onlyVt);
      assert.equal(await finalStatus(id), "SUCCEEDED");
      assert.deepEqual((await json(await server.api(`/api/request/${id}/`))).asked, []);
      const doc = await json(await pollUntilDone(server, file(value, { tlp: "red" })));
      assert.equal(vtCallsAbout(value), 0);
      assert.ok(mispCalls() > mispBefore, "MISP is the user's own instance: it is asked");
      assert.equal(doc.sources.virustotal.status, "skipped");
      assert.equal(doc.sources.virustotal.reason, "tlp");
      assert.equal(doc.sources.misp.status, "not_found");
      assert.equal(doc.root_entity.tlp, "RED");
    });

    it("sends an AMBER subject to a vendor allowed up to AMBER, but not AMBER+STRICT or PAP:AMBER", async () => {
      const amber = md5(3);
      assert.equal((await pollUntilDone(server, file(amber, { tlp: "AMBER" }))).status, 200);
      assert.equal(vtCallsAbout(amber), 1);
      const strict = md5(4);
      const strictDoc = await json(await pollUntilDone(server, file(strict, { tlp: "TLP:AMBER+STRICT" })));
      assert.equal(vtCallsAbout(strict), 0);
      assert.equal(strictDoc.sources.virustotal.reason, "tlp");
      assert.equal(strictDoc.root_entity.tlp, "AMBER", "Threatr's four words: AMBER+STRICT reads AMBER");
      const pap = md5(5);
      const papDoc = await json(await pollUntilDone(server, file(pap, { pap: "AMBER" })));
      assert.equal(vtCallsAbout(pap), 0);
      assert.equal(papDoc.sources.virustotal.reason, "pap");
      assert.equal(papDoc.root_entity.pap, "AMBER");
    });

    it("keeps the strictest TLP the subject was asked with", async () => {
      const value = md5(6);
      const tlpOf = async (tlp?: string) =>
        (await json(await pollUntilDone(server, file(value, tlp ? { tlp } : {})))).root_entity.tlp;
      assert.equal(await tlpOf("GREEN"), "GREEN");
      assert.equal(await tlpOf("RED"), "RED");
      assert.equal(await tlpOf(), "RED");
      assert.equal(await tlpOf("CLEAR"), "RED");
      const row = await server.services.store.db
        .selectFrom("entities")
        .select(["tlp", "pap"])
        .where("name", "=", value)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { tlp: "RED", pap: "WHITE" });
    });

    it("does not refresh a stale public vendor behind a RED ask", async () => {
      const value = md5(7);
      assert.equal((await pollUntilDone(server, file(value))).status, 200);
      assert.equal(vtCallsAbout(value), 1);
      await ageStoredSource(server.services.store, `OBSERVABLE/MD5/${value}`, "virustotal", 2 * DAY_MS);
      const requestsBefore = await countRequests(value);
      const red = await ask(file(value, { tlp: "RED" }));
      assert.equal(red.status, 200);
      assert.ok((await json(red)).sources.virustotal.age_seconds >= 2 * 24 * 3600);
      assert.equal(await countRequests(value), requestsBefore, "no background refresh was made");
      // The same stale part does start a refresh behind a CLEAR ask: the RED one held it back.
      assert.equal((await ask(file(value))).status, 200);
      assert.equal(await countRequests(value), requestsBefore + 1);
    });

    it("refuses bad TLP and PAP values with 400 and a code", async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ tlp: "PINK" }, "invalid_tlp"],
        [{ pap: "AMBER+" }, "invalid_pap"],
        [{ tlp: "" }, "invalid_tlp"],
      ];
      for (const [extra, code] of cases) {
        const res = await ask(file(md5(8), extra));
        assert.equal(res.status, 400);
        assert.equal((await json(res)).code, code);
      }
      for (const extra of [{ tlp: "R".repeat(100_000) }, { tlp: 4 }, { pap: { level: "RED" } }]) {
        const res = await ask(file(md5(8), extra));
        assert.equal(res.status, 400);
        assert.ok((await json(res)).code);
      }
      assert.equal((await server.api("/api/types/")).status, 200, "the service is still up");
    });

    /** A request's status once it is no longer queued or running. */
    async function finalStatus(id: string): Promise<string> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const { status } = await json(await server.api(`/api/request/${id}/`));
        if (!["ENQUEUED", "PROCESSING"].includes(status) || Date.now() > deadline) return status;
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    async function countRequests(value: string): Promise<number> {
      const rows = await server.services.store.db
        .selectFrom("requests")
        .select("id")
        .where("value", "=", value)
        .execute();
      return rows.length;
    }
  });
}
