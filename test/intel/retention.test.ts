/**
 * Retention on both databases: a subject nobody asked about within the window is forgotten with
 * what only it reached; what vendors returned for a subject asked within the window stays whole.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { subjectKey } from "../../src/intel/domain/requests.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { sweepRetention } from "../../src/intel/store/retention.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import { pollUntilDone, type TestIntelServer } from "../helpers/intel-server.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const FILE = { super_type: "OBSERVABLE", type: "MD5", value: MD5 };
const DOMAIN = { super_type: "OBSERVABLE", type: "DOMAIN", value: "example.org" };
const DAY = 86_400_000;

interface Doc {
  root_entity: { id: string };
  entities: Array<{ id: string }>;
  relations: Array<{ id: string }>;
  events: Array<{ id: string }>;
}

describeOnEachDatabase("retention", (db) => {
  let vt: FakeVendor;
  let server: TestIntelServer;
  before(async () => {
    vt = await startFakeVirusTotal({
      [`files/${MD5}`]: vtFixture("file"),
      "domains/example.org": vtFixture("domain"),
    });
    server = await db.startIntelServer({
      env: { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_RETENTION_DAYS: "0" },
    });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await vt?.close();
  });

  const ids = (doc: Doc) => ({
    entities: doc.entities.map((e) => e.id).sort(),
    relations: doc.relations.map((r) => r.id).sort(),
    events: doc.events.map((e) => e.id).sort(),
  });
  const count = async (table: "entities" | "relations" | "events") => {
    const row = await server.services.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it("keeps everything while every subject was asked within the window", async () => {
    const file = (await (await pollUntilDone(server, FILE)).json()) as Doc;
    const domain = (await (await pollUntilDone(server, DOMAIN)).json()) as Doc;
    assert.ok(file.entities.length > 1 && domain.entities.length > 1, "vendors returned graphs");
    const before = await count("entities");
    const swept = await sweepRetention(server.services.store.db, 30);
    assert.deepEqual(swept, { subjects: 0, requests: 0, entities: 0, relations: 0, events: 0 });
    assert.equal(await count("entities"), before);
  });

  it("forgets a subject nobody asked about again, never what a subject asked within the window reached", async () => {
    // A forced refresh: the file now has two finished requests.
    const forced = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ ...FILE, force: true }),
    });
    assert.equal(forced.status, 201);
    await forced.arrayBuffer();
    const fileBefore = (await (await pollUntilDone(server, FILE)).json()) as Doc;
    const domainBefore = (await (await pollUntilDone(server, DOMAIN)).json()) as Doc;
    const entitiesBefore = await count("entities");
    // Forty days on, only the file was asked about again (within a 30-day window).
    const later = new Date(Date.now() + 40 * DAY);
    await server.services.store.db
      .updateTable("subject_asks")
      .set({ asked_at: later.toISOString() })
      .where("subject_key", "=", subjectKey({ superType: "OBSERVABLE", type: "MD5", value: MD5 }))
      .execute();
    const swept = await sweepRetention(server.services.store.db, 30, later);
    assert.equal(swept.subjects, 1);
    assert.equal(swept.requests, 2, "the domain's request and the file's older one");
    const onlyDomain = domainBefore.entities.filter((e) => !fileBefore.entities.some((f) => f.id === e.id));
    assert.ok(onlyDomain.length > 0);
    assert.equal(swept.entities, entitiesBefore - (await count("entities")));
    assert.ok(swept.entities >= onlyDomain.length, "what only the forgotten subject reached is gone");

    const fileRequests = await server.services.store.db
      .selectFrom("requests")
      .select("id")
      .where("subject_key", "=", subjectKey({ superType: "OBSERVABLE", type: "MD5", value: MD5 }))
      .execute();
    assert.equal(fileRequests.length, 1, "only the request its lookup names is kept");
    const fileAfter = await pollUntilDone(server, FILE);
    assert.equal(fileAfter.status, 200, "the subject asked within the window still answers at once");
    assert.deepEqual(ids((await fileAfter.json()) as Doc), ids(fileBefore));
    const domainAgain = await server.api("/api/request/", { method: "POST", body: JSON.stringify(DOMAIN) });
    assert.equal(domainAgain.status, 201, "the forgotten subject is looked up anew");
    await domainAgain.arrayBuffer();
    assert.equal((await pollUntilDone(server, DOMAIN)).status, 200);
  });

  it("is swept by the worker on its schedule", async () => {
    const db2 = server.services.store.db;
    const old = new Date(Date.now() - 10 * DAY).toISOString();
    await db2
      .insertInto("subject_asks")
      .values({ subject_key: "OBSERVABLE/MD5/forgotten", asked_at: old })
      .execute();
    const worker = await db.startIntelServer({
      env: { INTEL_RETENTION_DAYS: "1", INTEL_RETENTION_SWEEP_MINUTES: "1", INTEL_CONNECTORS: "" },
    });
    try {
      const deadline = Date.now() + 15_000;
      let left = 1;
      while (left > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        left = (
          await db2.selectFrom("subject_asks").select("subject_key").where("asked_at", "=", old).execute()
        ).length;
      }
      assert.equal(left, 0, "the worker swept the forgotten subject");
    } finally {
      await worker.close();
    }
  });
});
