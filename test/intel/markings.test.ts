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
import { describeOnEachDatabase } from "../helpers/databases.ts";
import type { SimpleFake } from "../helpers/fake-vendor.ts";
import type { FakeVendor } from "../helpers/fake-virustotal.ts";
import { pollUntilDone, type TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";
import { type MarkingVendors, startMarkingVendors } from "../helpers/marking-vendors.ts";
import { runLoupe } from "../helpers/run-loupe.ts";
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

describeOnEachDatabase("TLP/PAP gating", (db) => {
  let vt: FakeVendor;
  let misp: SimpleFake;
  let server: TestIntelServer;
  let fakes: MarkingVendors;
  const ask = (body: unknown) => server.api("/api/request/", { method: "POST", body: JSON.stringify(body) });
  /** VirusTotal calls about one hash: the only count that matters for that subject. */
  const vtCallsAbout = (value: string) => vt.calls.filter((c) => c.includes(value)).length;
  const mispCalls = () => misp.calls.length;

  before(async () => {
    fakes = await startMarkingVendors(db, {
      worker: false,
      env: { INTEL_TLP_ALLOW: "virustotal:AMBER" },
    });
    ({ server, vt, misp } = fakes);
  });
  after(() => fakes?.close());

  // Runs first, with no worker yet: requests stay queued, so which one each ask joins is certain.
  it("never widens a request: a CLEAR ask after a RED one is gated by the stored RED and joins it", async () => {
    const value = md5(1);
    const green = md5(11);
    const greenId = (await json(await ask(file(green, { tlp: "GREEN", force: true })))).id;
    const red = await ask(file(value, { tlp: "RED", force: true }));
    assert.equal(red.status, 201);
    const redId = (await json(red)).id;
    const clear = await ask(file(value, { force: true }));
    assert.equal(clear.status, 201);
    assert.equal((await json(clear)).id, redId, "the CLEAR ask is RED now: it may reach what RED may");
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
    // A request planned before the subject was marked RED is gated again when it runs.
    assert.equal((await ask(file(green, { tlp: "RED" }))).status, 201);
    assert.deepEqual((await json(await server.api(`/api/request/${greenId}/`))).asked, [
      "misp",
      "virustotal",
    ]);
    startWorker(server.services);
    for (const id of [redId, greenId]) assert.equal(await finalStatus(id), "SUCCEEDED");
    const done = await pollUntilDone(server, file(value));
    assert.equal(done.status, 200);
    assert.equal(vtCallsAbout(value), 0, "VirusTotal never heard of the RED subject");
    assert.equal(vtCallsAbout(green), 0, "nor of the one marked RED while its request waited");
    assert.equal((await json(await server.api(`/api/request/${greenId}/`))).sources.virustotal.reason, "tlp");
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
    // The RED marking sticks: a later ask that names no marking (as Colander's) refreshes nothing either.
    assert.equal((await ask(file(value))).status, 200);
    assert.equal((await ask(file(value, { tlp: "CLEAR" }))).status, 200);
    assert.equal(await countRequests(value), requestsBefore);
    assert.equal(vtCallsAbout(value), 1);
  });

  it("refuses unknown fields in every request body, naming the field; Colander's body still works", async () => {
    const refused: Array<[string, string, unknown, RegExp]> = [
      ["POST", "/api/request/", file(md5(30), { colour: "red" }), /unknown field "colour"/],
      [
        "POST",
        "/api/requests/",
        { subjects: [file(md5(30))], tlp: "RED", colour: 1 },
        /unknown field "colour"/,
      ],
      ["PUT", "/api/webhook/", { url: "https://hooks.example.org/x", secret: "s" }, /unknown field "secret"/],
    ];
    for (const [method, path, body, detail] of refused) {
      const res = await server.api(path, { method, body: JSON.stringify(body) });
      const answer = await json(res);
      assert.equal(res.status, 400, path);
      assert.equal(answer.code, "invalid_request", path);
      assert.match(answer.detail, detail, path);
    }
    // A bulk ask's subject is checked alone: an unknown field or a bad level refuses that subject only.
    const res = await server.api("/api/requests/", {
      method: "POST",
      body: JSON.stringify({
        subjects: [
          file(md5(31), { tlp: "AMBER" }),
          file(md5(32), { colour: "red" }),
          file(md5(33), { pap: "PINK" }),
        ],
      }),
    });
    assert.equal(res.status, 202);
    const batch = await json(res);
    assert.deepEqual(
      batch.rejected.map((r: { index: number; code: string }) => [r.index, r.code]),
      [
        [1, "invalid_request"],
        [2, "invalid_pap"],
      ],
    );
    assert.match(batch.rejected[0].detail, /unknown field "colour"/);
    const top = await server.api("/api/requests/", {
      method: "POST",
      body: JSON.stringify({ subjects: [file(md5(34))], tlp: "PINK" }),
    });
    assert.equal(top.status, 400);
    assert.equal((await json(top)).code, "invalid_tlp");
    const colander = await ask({ super_type: "OBSERVABLE", type: "MD5", value: md5(35), force: true });
    assert.equal(colander.status, 201, "super_type, type, value and force: Colander's body");
    await colander.arrayBuffer();
  });

  it("says who was asked: nobody, when TLP/PAP keeps the subject from every configured vendor", async () => {
    const value = md5(36);
    const doc = await json(
      await pollUntilDone(server, {
        super_type: "OBSERVABLE",
        type: "SHA256",
        value: value.repeat(2),
        tlp: "RED",
      }),
    );
    assert.equal(doc.nobody_asked, null, "the own MISP was asked: it answered not found");
    // A DNS record only VirusTotal looks up (not the own MISP): RED keeps it from everyone.
    const record = { super_type: "OBSERVABLE", type: "DNS_RECORD", value: "A www.example.org 192.0.2.10" };
    const gated = await json(await pollUntilDone(server, { ...record, tlp: "RED" }));
    assert.equal(gated.sources.virustotal.status, "skipped");
    assert.equal(gated.nobody_asked?.reason, "markings", JSON.stringify(gated.nobody_asked));
    const row = await server.services.store.db
      .selectFrom("requests")
      .select("id")
      .where("type", "=", "DNS_RECORD")
      .executeTakeFirstOrThrow();
    const request = await json(await server.api(`/api/request/${row.id}/`));
    assert.deepEqual(request.asked, []);
    assert.equal(request.nobody_asked?.reason, "markings");
    const phone = { super_type: "OBSERVABLE", type: "PHONE", value: "+33 6 00 00 00 00" };
    const unsupported = await json(await pollUntilDone(server, phone));
    assert.equal(unsupported.nobody_asked?.reason, "type_not_supported");
    assert.deepEqual(unsupported.sources, {});
  });

  it("lowers a subject's marking only by an administrator's action (CLI), audited", async () => {
    const value = md5(40);
    assert.equal((await pollUntilDone(server, file(value, { tlp: "RED" }))).status, 200);
    const forcedAgain = async () => {
      const res = await ask(file(value, { force: true }));
      await res.arrayBuffer();
      assert.equal((await pollUntilDone(server, file(value))).status, 200);
    };
    await forcedAgain();
    assert.equal(vtCallsAbout(value), 0, "RED sticks");
    const refused = await runLoupe(
      ["intel", "marking", "set", "OBSERVABLE", "MD5", md5(41), "--tlp", "CLEAR"],
      {
        DATABASE_URL: db.url,
      },
    );
    assert.notEqual(refused.code, 0, "a subject never stored cannot be set");
    assert.match(refused.stderr, /no stored subject/);
    const run = await runLoupe(
      ["intel", "marking", "set", "observable", "md5", value.toUpperCase(), "--tlp", "clear"],
      { DATABASE_URL: db.url },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /TLP RED → WHITE, PAP WHITE → WHITE/);
    const audit = await server.services.store.db
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "marking.set")
      .where("target", "=", `OBSERVABLE/MD5/${value}`)
      .execute();
    assert.equal(audit.length, 1);
    assert.match(audit[0]!.actor, /^cli:/);
    assert.equal(audit[0]!.detail, "TLP RED → WHITE, PAP WHITE → WHITE");
    await forcedAgain();
    assert.equal(vtCallsAbout(value), 1, "the lowered subject reaches what CLEAR may reach");
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
