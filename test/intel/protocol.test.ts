/** The Colander request protocol end to end, against a fake VirusTotal, on SQLite and PostgreSQL. */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { request } from "undici";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import { pollUntilDone, type TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const file = (value: string, force = false) => ({ super_type: "observable", type: "md5", value, force });

describeOnEachDatabase("intel request protocol", (db) => {
  let vt: FakeVendor;
  let server: TestIntelServer;
  before(async () => {
    const fileObj = vtFixture("file");
    vt = await startFakeVirusTotal({
      [`files/${MD5}`]: fileObj,
      "domains/example.org": vtFixture("domain"),
      "ip_addresses/192.0.2.10": vtFixture("ip"),
    });
    server = await db.startIntelServer({
      env: {
        INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
        INTEL_VENDOR_RETRIES: "0",
        INTEL_FAILURE_COOLDOWN_MS: "60000",
      },
    });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await vt.close();
  });

  it("refuses calls without a valid key, and serves the schema to any valid key", async () => {
    assert.equal((await fetch(`${server.url}/api/types/`)).status, 401);
    const bad = await fetch(`${server.url}/api/types/`, {
      headers: { authorization: `Token ${"0".repeat(40)}` },
    });
    assert.equal(bad.status, 401);
    assert.deepEqual(Object.keys(await json(bad)).sort(), ["code", "detail"]);
    assert.equal((await fetch(`${server.url}/api/schema/`, { method: "HEAD" })).status, 401);
    assert.equal((await server.api("/api/schema/", { method: "HEAD" })).status, 200);
    const spec = await json(await server.api("/api/schema/"));
    assert.ok(spec.paths["/api/request/"]);
    assert.equal((await server.api("/api/docs/")).status, 200);
  });

  it("validates super type, type and value with clear messages", async () => {
    const post = (body: unknown) =>
      server.api("/api/request/", { method: "POST", body: JSON.stringify(body) });
    let res = await post({ super_type: "nope", type: "md5", value: MD5 });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "unknown_super_type");
    res = await post({ super_type: "OBSERVABLE", type: "nope", value: MD5 });
    assert.equal((await json(res)).code, "unknown_type");
    res = await post({ super_type: "OBSERVABLE", type: "IPV4", value: "999.1.1.1" });
    const body = await json(res);
    assert.equal(body.code, "invalid_value");
    assert.match(body.detail, /not a valid IPv4/);
    res = await post({ super_type: "OBSERVABLE", type: "MD5" });
    assert.equal(res.status, 400);
  });

  it("follows the Colander flow: force → 201 → 200 with VirusTotal's knowledge graph", async () => {
    const first = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify(file(MD5, true)),
    });
    assert.equal(first.status, 201);
    const pending = await json(first);
    assert.deepEqual(Object.keys(pending).sort(), [
      "created_at",
      "id",
      "status",
      "super_type",
      "type",
      "value",
    ]);
    assert.ok(["ENQUEUED", "PROCESSING"].includes(pending.status));
    assert.equal(first.headers.get("location"), `/api/request/${pending.id}/`);
    assert.equal(first.headers.get("retry-after"), "1");

    const done = await pollUntilDone(server, file(MD5));
    assert.equal(done.status, 200);
    const doc = await json(done);
    assert.equal(doc.root_entity.name, MD5);
    assert.equal(doc.root_entity.super_type.short_name, "OBSERVABLE");
    assert.equal(doc.root_entity.type.short_name, "MD5");
    assert.equal(doc.root_entity.attributes.vt_score, "61/76");
    assert.equal(doc.root_entity.attributes.source_vendor, "virustotal");
    assert.equal(doc.root_entity.tlp, "WHITE");
    assert.match(doc.root_entity.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const names = doc.entities.map(
      (e: { type: { short_name: string }; name: string }) => `${e.type.short_name}:${e.name}`,
    );
    assert.deepEqual(names.sort(), [
      "SHA1:3395856ce81f2b7382dee72602f798b642f14140",
      "SHA256:275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f",
      "TROJAN:eicar/test",
    ]);
    const relationNames = doc.relations.map((r: { name: string }) => r.name).sort();
    assert.deepEqual(relationNames, ["associated threat", "same file as", "same file as"]);
    const events = doc.events.map(
      (e: { type: { short_name: string }; name: string }) => `${e.type.short_name}:${e.name}`,
    );
    assert.ok(events.includes("AV_DETECTION:ClamAV: Win.Test.EICAR_HDB-1"));
    assert.ok(events.includes("HIT:Submitted to VirusTotal"));
    assert.equal(events.length, 4);
    const hit = doc.events.find((e: { name: string }) => e.name === "Submitted to VirusTotal");
    assert.equal(hit.count, 612345);
    assert.match(hit.first_seen, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(doc.graph, /^flowchart LR\n/);
    assert.equal(doc.sources.virustotal.status, "ok");
    assert.deepEqual(vt.calls, [`GET /api/v3/files/${MD5}`]);

    const status = await json(await server.api(`/api/request/${pending.id}/`));
    assert.equal(status.status, "SUCCEEDED");
  });

  it("answers stored data with 200 without asking vendors again, and refreshes on force", async () => {
    const callsBefore = vt.calls.length;
    const again = await server.api("/api/request/", { method: "POST", body: JSON.stringify(file(MD5)) });
    assert.equal(again.status, 200);
    assert.equal(vt.calls.length, callsBefore);
    vt.delayMs = 1500; // keep the refresh running while the non-forced call arrives
    try {
      const forced = await server.api("/api/request/", {
        method: "POST",
        body: JSON.stringify(file(MD5, true)),
      });
      assert.equal(forced.status, 201);
      const nonForced = await server.api("/api/request/", {
        method: "POST",
        body: JSON.stringify(file(MD5)),
      });
      assert.equal(nonForced.status, 201, "while a refresh runs, non-forced calls wait for it");
    } finally {
      vt.delayMs = 0;
    }
    assert.equal((await pollUntilDone(server, file(MD5))).status, 200);
    assert.equal(vt.calls.length, callsBefore + 1);
  });

  it("sends the stored answer gzipped to clients that accept it, the same document once unzipped", async () => {
    const ask = (acceptEncoding: string) =>
      request(`${server.url}/api/request/`, {
        method: "POST",
        headers: {
          authorization: `Token ${server.key}`,
          "content-type": "application/json",
          "accept-encoding": acceptEncoding,
        },
        body: JSON.stringify(file(MD5)),
      });
    const plain = await ask("identity");
    const plainBody = Buffer.from(await plain.body.arrayBuffer());
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.equal(plain.headers.vary, "accept-encoding");
    // What python-requests sends on every call (Colander), then a client that refuses gzip.
    for (const [header, gzipped] of [
      ["gzip, deflate", true],
      ["br;q=1, gzip;q=0.5", true],
      ["gzip;q=0, deflate", false],
      ["*;q=0", false],
    ] as const) {
      const res = await ask(header);
      const body = Buffer.from(await res.body.arrayBuffer());
      assert.equal(res.statusCode, 200, header);
      assert.equal(res.headers["content-encoding"], gzipped ? "gzip" : undefined, header);
      assert.equal(res.headers.vary, "accept-encoding", header);
      const text = (gzipped ? gunzipSync(body) : body).toString("utf8");
      // Each vendor's age is in whole seconds: compare the document, and its sources' vendors.
      const doc = JSON.parse(text) as { sources: Record<string, unknown> };
      const plainDoc = JSON.parse(plainBody.toString("utf8")) as { sources: Record<string, unknown> };
      assert.deepEqual(Object.keys(doc.sources), Object.keys(plainDoc.sources));
      assert.deepEqual({ ...doc, sources: null }, { ...plainDoc, sources: null }, header);
      if (gzipped)
        assert.ok(body.length < plainBody.length / 2, `${body.length} of ${plainBody.length} bytes`);
    }
  });

  it("joins identical concurrent refreshes: one vendor call for many forced requests", async () => {
    vt.delayMs = 2000; // long enough that every caller arrives while the lookup runs, even on a loaded machine
    const callsBefore = vt.calls.length;
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, () =>
          server.api("/api/request/", { method: "POST", body: JSON.stringify(file(MD5, true)) }),
        ),
      );
      const ids = new Set<string>();
      for (const a of answers) {
        assert.equal(a.status, 201);
        ids.add((await json(a)).id);
      }
      assert.equal(ids.size, 1, "every caller joined the same lookup");
      assert.equal((await pollUntilDone(server, file(MD5))).status, 200);
      assert.equal(vt.calls.length, callsBefore + 1);
    } finally {
      vt.delayMs = 0;
    }
  });

  it("answers a subject no vendor knows with the root entity alone", async () => {
    const unknown = "0123456789abcdef0123456789abcdef";
    const res = await pollUntilDone(server, file(unknown));
    assert.equal(res.status, 200);
    const doc = await json(res);
    assert.equal(doc.root_entity.name, unknown);
    assert.deepEqual([doc.entities.length, doc.events.length, doc.relations.length], [0, 0, 0]);
    assert.equal(doc.sources.virustotal.status, "not_found");
  });

  it("looks up a subject first seen as a neighbour instead of answering a bare neighbour", async () => {
    const domain = await pollUntilDone(server, {
      super_type: "OBSERVABLE",
      type: "DOMAIN",
      value: "example.org",
    });
    const doc = await json(domain);
    const ip = doc.entities.find((e: { name: string }) => e.name === "192.0.2.10");
    assert.ok(ip, "the domain resolves to the IP");
    assert.ok(
      doc.relations.some(
        (r: { name: string; obj_to: string }) => r.name === "resolves" && r.obj_to === ip.id,
      ),
    );
    const asked = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "IPV4", value: "192.0.2.10" }),
    });
    assert.equal(asked.status, 201);
    const ipDoc = await json(
      await pollUntilDone(server, { super_type: "OBSERVABLE", type: "IPV4", value: "192.0.2.10" }),
    );
    assert.equal(ipDoc.root_entity.id, ip.id, "the same entity, now looked up");
    assert.equal(ipDoc.root_entity.attributes.country, "NL");
    assert.ok(ipDoc.entities.some((e: { name: string }) => e.name === "AS64500"));
  });

  it("answers 502 with per-vendor errors when every vendor failed, and keeps answering so during the cool-down", async () => {
    vt.failWith = 500;
    try {
      const value = "ffffffffffffffffffffffffffffffff";
      const res = await pollUntilDone(server, file(value));
      assert.equal(res.status, 502);
      const body = await json(res);
      assert.equal(body.code, "vendors_failed");
      assert.match(body.errors.virustotal, /http_error/);
      const again = await server.api("/api/request/", {
        method: "POST",
        body: JSON.stringify(file(value)),
      });
      assert.equal(again.status, 502);
    } finally {
      vt.failWith = null;
    }
  });

  it("lists supported types, modules and status", async () => {
    const supported = await json(await server.api("/api/types/supported/"));
    assert.deepEqual(supported.super_types, [{ name: "Observable", short_name: "OBSERVABLE" }]);
    assert.ok(supported.types.OBSERVABLE.some((t: { id: string }) => t.id === "IPV4"));
    const modules = await json(await server.api("/api/modules/"));
    assert.deepEqual(
      modules.map((m: { id: string; configured: number }) => [m.id, m.configured]),
      [["virustotal", 1]],
    );
    const status = await json(await server.api("/api/status/now/"));
    assert.ok(status.cached_entities >= 5);
    assert.ok(status.cached_events >= 4);
    assert.deepEqual(
      status.available_modules.map((m: { id: string }) => m.id),
      ["virustotal"],
    );
    assert.ok(status.workers.length >= 1);
  });
});
