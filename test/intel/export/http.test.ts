/**
 * `GET /api/request/<id>/?format=` against a real intel server and a fake VirusTotal: 409 while the
 * request runs, the export once it SUCCEEDED (every format of the table), 400 for a bad format. On
 * SQLite only: the formats are rendered from the graph the store reads, and reading it is proved on
 * both databases (test/intel/protocol.test.ts, test/intel/hostile-graphs.test.ts).
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { EXPORT_TABLE } from "../../../src/intel/domain/export/index.ts";
import { addCredentials } from "../../../src/intel/store/credentials.ts";
import { colanderProblems } from "../../helpers/colander-validator.ts";
import { describeOnDatabase } from "../../helpers/databases.ts";
import { exportValidator } from "../../helpers/export-validators.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import { pollUntilDone, type TestIntelServer } from "../../helpers/intel-server.ts";
import { json } from "../../helpers/json.ts";
import { mispProblems } from "../../helpers/misp-validator.ts";
import { stixProblems } from "../../helpers/stix-validator.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const subject = (force: boolean) => ({ super_type: "OBSERVABLE", type: "MD5", value: MD5, force });

describeOnDatabase("sqlite", "request export over HTTP on sqlite", {}, (db) => {
  let vt: FakeVendor;
  let server: TestIntelServer;
  let requestId: string;
  before(async () => {
    vt = await startFakeVirusTotal({ [`files/${MD5}`]: vtFixture("file") });
    server = await db.startIntelServer({
      env: { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_VENDOR_RETRIES: "0" },
    });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await vt.close();
  });

  it("answers 409 while the request runs, then the STIX bundle once it SUCCEEDED", async () => {
    vt.delayMs = 1500;
    try {
      const first = await server.api("/api/request/", {
        method: "POST",
        body: JSON.stringify(subject(true)),
      });
      assert.equal(first.status, 201);
      requestId = (await json(first)).id;
      const early = await server.api(`/api/request/${requestId}/?format=stix`);
      assert.equal(early.status, 409);
      const body = await json(early);
      assert.equal(body.code, "request_not_finished");
      assert.ok(["ENQUEUED", "PROCESSING"].includes(body.status));
    } finally {
      vt.delayMs = 0;
    }
    assert.equal((await pollUntilDone(server, subject(false))).status, 200);
    const res = await server.api(`/api/request/${requestId}/?format=stix`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/stix\+json; version="2\.1"/);
    const bundle = await json(res);
    assert.deepEqual(stixProblems(bundle), []);
    const file = bundle.objects.find((o: { type: string }) => o.type === "file");
    assert.equal(file.hashes.MD5, MD5);
    const malware = bundle.objects.find((o: { type: string }) => o.type === "malware");
    assert.equal(malware.name, "eicar/test");
    const identities = bundle.objects.filter((o: { type: string }) => o.type === "identity");
    assert.deepEqual(identities.map((o: { name: string }) => o.name).sort(), ["Loupe", "VirusTotal"]);
  });

  it("answers the MISP event of the request", async () => {
    const res = await server.api(`/api/request/${requestId}/?format=misp`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const doc = await json(res);
    assert.deepEqual(mispProblems(doc), []);
    const file = doc.Event.Object.find((o: { name: string }) => o.name === "file");
    assert.ok(
      file.Attribute.some((a: { type: string; value: string }) => a.type === "md5" && a.value === MD5),
    );
  });

  it("answers the Colander feed of the request", async () => {
    const res = await server.api(`/api/request/${requestId}/?format=colander`);
    assert.equal(res.status, 200);
    const feed = await json(res);
    assert.deepEqual(colanderProblems(feed), []);
    const root = Object.values(feed.entities).find((e) => (e as { name: string }).name === MD5);
    assert.equal((root as { colander_internal_type: string }).colander_internal_type, "observable");
  });

  it("answers every format of the export table with its content type and a body its validator accepts", async () => {
    for (const row of EXPORT_TABLE) {
      const res = await server.api(`/api/request/${requestId}/?format=${row.name}`);
      assert.equal(res.status, 200, row.name);
      const [type] = row.contentType.split(";");
      assert.ok(
        res.headers.get("content-type")?.startsWith(type ?? ""),
        `${row.name}: ${res.headers.get("content-type")}`,
      );
      assert.deepEqual(exportValidator(row.name)(await json(res)), [], row.name);
    }
  });

  it("still answers the request's status without a format", async () => {
    const res = await json(await server.api(`/api/request/${requestId}/`));
    assert.equal(res.status, "SUCCEEDED");
  });

  it("refuses an unknown format, a repeated or huge one and a bad depth with 400 {detail, code}", async () => {
    const tries = [
      "format=pdf",
      "format=stix&format=misp",
      `format=${"x".repeat(100_000)}`,
      "format=stix&depth=9",
      "format=stix&depth=-1",
    ];
    for (const query of tries) {
      const res = await server.api(`/api/request/${requestId}/?${query}`);
      // A request line past Node's header limit is refused before Fastify (431).
      assert.ok([400, 431].includes(res.status), `${query.slice(0, 40)} → ${res.status}`);
      if (res.status === 400) assert.deepEqual(Object.keys(await json(res)).sort(), ["code", "detail"]);
      else await res.arrayBuffer();
    }
    const pdf = await json(await server.api(`/api/request/${requestId}/?format=pdf`));
    assert.match(pdf.detail, /format must be one of: stix, misp, colander/);
    const missing = await server.api("/api/request/00000000-0000-4000-8000-000000000000/?format=stix");
    assert.equal(missing.status, 404);
    assert.equal((await server.api(`/api/request/${requestId}/?format=stix`)).status, 200);
  });

  it("answers 409 request_not_succeeded for a request that FAILED", async () => {
    vt.failWith = 500;
    try {
      const other = { ...subject(true), value: "0123456789abcdef0123456789abcdef" };
      const first = await json(
        await server.api("/api/request/", { method: "POST", body: JSON.stringify(other) }),
      );
      assert.equal((await pollUntilDone(server, { ...other, force: false })).status, 502);
      const res = await server.api(`/api/request/${first.id}/?format=misp`);
      assert.equal(res.status, 409);
      assert.deepEqual(await json(res), {
        code: "request_not_succeeded",
        detail: `Request ${first.id} ended FAILED: there is no result to export.`,
        status: "FAILED",
      });
    } finally {
      vt.failWith = null;
    }
  });

  it("needs a key", async () => {
    assert.equal((await fetch(`${server.url}/api/request/${requestId}/?format=stix`)).status, 401);
  });
});
