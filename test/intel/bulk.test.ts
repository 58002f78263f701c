/**
 * Bulk asks end to end against a fake VirusTotal, on SQLite and PostgreSQL: 1,000 mixed subjects,
 * the bad ones listed by index, each result identical to a single ask's, BULK_MAX, duplicates.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, it } from "node:test";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import type { TestIntelServer } from "../helpers/intel-server.ts";
import { type Json, json } from "../helpers/json.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const md5Of = (i: number) => createHash("md5").update(`bulk-${i}`).digest("hex");

/** 1,000 subjects: every 10th is bad in its own way, the rest valid hashes, domains and addresses. */
function mixedSubjects(): { subjects: unknown[]; bad: Map<number, string> } {
  const bad = new Map<number, string>();
  const subjects: unknown[] = [];
  const badKinds: Array<[unknown, string]> = [
    [{ super_type: "nope", type: "md5", value: MD5 }, "unknown_super_type"],
    [{ super_type: "OBSERVABLE", type: "nope", value: MD5 }, "unknown_type"],
    [{ super_type: "OBSERVABLE", type: "IPV4", value: "999.1.1.1" }, "invalid_value"],
    [{ super_type: "OBSERVABLE", type: "MD5" }, "invalid_request"],
    ["just a string", "invalid_request"],
  ];
  for (let i = 0; i < 1000; i++) {
    if (i % 10 === 3) {
      const [subject, code] = badKinds[((i / 10) % badKinds.length) | 0] as [unknown, string];
      subjects.push(subject);
      bad.set(i, code);
    } else if (i % 10 === 5)
      subjects.push({ super_type: "observable", type: "domain", value: `h${i}.example.org` });
    else if (i % 10 === 7)
      subjects.push({ super_type: "OBSERVABLE", type: "IPV4", value: `192.0.2.${i % 250}` });
    else subjects.push({ super_type: "OBSERVABLE", type: "MD5", value: i === 0 ? MD5 : md5Of(i) });
  }
  return { subjects, bad };
}

async function waitForBatch(server: TestIntelServer, id: string, timeoutMs = 120_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const progress = await json(await server.api(`/api/batches/${id}/?limit=1`));
    if (progress.finished_at || Date.now() > deadline) return progress;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every item of a batch with its result, page by page. */
async function allItems(server: TestIntelServer, id: string): Promise<Json[]> {
  const items: Json[] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const page = await json(await server.api(`/api/batches/${id}/?results=1&limit=1000&offset=${offset}`));
    assert.ok(page.items.length <= 50, "a results page is capped by BATCH_RESULTS_PAGE_MAX");
    items.push(...page.items);
    offset = page.next_offset;
  }
  return items;
}

/** The item's result is what a single ask for its subject answers (200, stored). */
async function compareWithSingleAsk(server: TestIntelServer, item: Json): Promise<void> {
  const single = await server.api("/api/request/", {
    method: "POST",
    body: JSON.stringify({ super_type: item.super_type, type: item.type, value: item.value }),
  });
  assert.equal(single.status, 200, `${item.value} is stored after the batch`);
  assert.deepEqual(
    withoutAges(item.result),
    withoutAges(await json(single)),
    `the result of ${item.value} is a single ask's`,
  );
}

/** A result without each vendor's `age_seconds`: the two answers are read a second or so apart. */
function withoutAges(result: Json): Json {
  const sources = Object.fromEntries(
    Object.entries(result.sources as Record<string, Json>).map(([vendor, { age_seconds, ...part }]) => {
      assert.equal(typeof age_seconds, "number", `${vendor}'s part says its age`);
      return [vendor, part];
    }),
  );
  return { ...result, sources };
}

const postBulk = (server: TestIntelServer, body: unknown) =>
  server.api("/api/requests/", { method: "POST", body: JSON.stringify(body) });

describeOnEachDatabase("bulk asks", (db) => {
  let vt: FakeVendor;
  let server: TestIntelServer;
  before(async () => {
    vt = await startFakeVirusTotal({
      [`files/${MD5}`]: vtFixture("file"),
      "domains/h5.example.org": vtFixture("domain"),
    });
    server = await db.startIntelServer({
      // Vendor retries as deployed: a loopback socket closed under load is not what this suite tests.
      env: { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_VENDOR_RETRIES: "2", BULK_MAX: "1000" },
    });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await vt.close();
  });

  it("takes 1,000 mixed subjects, lists the bad ones by index, and answers each like a single ask", async (t) => {
    const { subjects, bad } = mixedSubjects();
    let mark = Date.now();
    const phase = (name: string) => {
      t.diagnostic(`${name}: ${Date.now() - mark} ms`);
      mark = Date.now();
    };
    const res = await postBulk(server, { subjects });
    phase("bulk ask answered");
    assert.equal(res.status, 202);
    const created = await json(res);
    assert.equal(res.headers.get("location"), `/api/batches/${created.id}/`);
    assert.equal(created.total, 1000);
    assert.deepEqual(
      created.rejected.map((r: Json) => [r.index, r.code]),
      [...bad.entries()],
    );
    for (const r of created.rejected) assert.ok(r.detail.length > 0);
    assert.equal(created.requests.length, 1000 - bad.size);
    assert.ok(created.requests.every((r: Json) => !bad.has(r.index) && typeof r.id === "string"));

    const done = await waitForBatch(server, created.id);
    phase("batch finished");
    assert.ok(done.finished_at, "the batch finishes");
    if (done.counts.FAILED) {
      const failed = (await allItems(server, created.id)).filter((i) => i.status === "FAILED");
      t.diagnostic(`failed: ${JSON.stringify(failed.map((i) => [i.value, i.errors]))}`);
    }
    assert.deepEqual(done.counts, { SUCCEEDED: 1000 - bad.size });
    assert.equal(done.rejected.length, bad.size);

    const items = await allItems(server, created.id);
    phase("results read");
    assert.deepEqual(
      items.map((i) => i.index),
      created.requests.map((r: Json) => r.index),
    );
    // Eight single asks at a time: the comparison, not the asking, is under test.
    for (let i = 0; i < items.length; i += 8) {
      await Promise.all(items.slice(i, i + 8).map((item) => compareWithSingleAsk(server, item)));
    }
    phase("compared with single asks");
    const known = items.find((i) => i.value === MD5);
    assert.equal(known.result.root_entity.attributes.vt_score, "61/76");
  });

  it("answers a subject stored before from storage, in the batch's request list", async () => {
    const res = await postBulk(server, {
      subjects: [{ super_type: "OBSERVABLE", type: "MD5", value: MD5 }],
    });
    const created = await json(res);
    assert.equal(created.finished, true);
    assert.equal(created.requests[0].status, "SUCCEEDED");
    const progress = await json(await server.api(`/api/batches/${created.id}/`));
    assert.ok(progress.finished_at);
    assert.deepEqual(progress.counts, { SUCCEEDED: 1 });
  });

  it("joins duplicates (also differently spelled) to one request", async () => {
    const subjects = [
      { super_type: "OBSERVABLE", type: "DOMAIN", value: "dup.example.org" },
      { super_type: "OBSERVABLE", type: "DOMAIN", value: "Dup[.]Example.org." },
      { super_type: "OBSERVABLE", type: "DOMAIN", value: "dup.example.org" },
    ];
    vt.delayMs = 300; // the first lookup is still running when the duplicates arrive
    const created = await json(await postBulk(server, { subjects, force: true }));
    vt.delayMs = 0;
    assert.equal(created.requests.length, 3);
    assert.equal(new Set(created.requests.map((r: Json) => r.id)).size, 1);
    const done = await waitForBatch(server, created.id);
    assert.deepEqual(done.counts, { SUCCEEDED: 3 });
    const items = await allItems(server, created.id);
    assert.deepEqual(
      items.map((i: Json) => i.value),
      ["dup.example.org", "dup.example.org", "dup.example.org"],
    );
    assert.deepEqual(items[1].result, items[0].result);
  });

  it("refuses a bulk ask where nothing is valid, more than BULK_MAX subjects, and a body over the limit", async () => {
    let res = await postBulk(server, { subjects: [{ super_type: "x", type: "y", value: "z" }, 42] });
    assert.equal(res.status, 400);
    let body = await json(res);
    assert.equal(body.code, "no_valid_subject");
    assert.deepEqual(
      body.rejected.map((r: Json) => r.code),
      ["unknown_super_type", "invalid_request"],
    );
    const many = Array.from({ length: 1001 }, (_, i) => ({
      super_type: "OBSERVABLE",
      type: "MD5",
      value: md5Of(i),
    }));
    res = await postBulk(server, { subjects: many });
    assert.equal(res.status, 413);
    assert.equal((await json(res)).code, "too_many_subjects");
    res = await postBulk(server, { subjects: [] });
    assert.equal(res.status, 400);
    const huge = JSON.stringify({
      subjects: [{ super_type: "OBSERVABLE", type: "URL", value: "x".repeat(5_000_000) }],
    });
    res = await server.api("/api/requests/", { method: "POST", body: huge });
    assert.equal(res.status, 413);
    body = await json(res);
    assert.equal(typeof body.code, "string");
    // 200,000 nested arrays as one subject: refused like any other non-subject, nothing recurses.
    const deep = `{"subjects": [${"[".repeat(200_000)}${"]".repeat(200_000)}]}`;
    res = await server.api("/api/requests/", { method: "POST", body: deep });
    assert.ok([400, 413].includes(res.status), `deep nesting: ${res.status}`);
    assert.equal(typeof (await json(res)).code, "string");
    assert.equal((await server.api("/api/batches/nope/")).status, 404);
    assert.equal((await server.api("/api/types/")).status, 200, "the service survived");
  });
});
