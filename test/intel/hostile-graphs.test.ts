/**
 * Large graphs against a real intel process, on SQLite and PostgreSQL: a hashlookup answer listing
 * 40,000 parent packages is capped (and says so), and a subject with more entities than either
 * database allows variables in a statement answers, exports and comes in a bulk ask's results, as
 * does an unrelated subject that reaches it at depth 3. The big graph is written straight into the
 * database (thousands of rows per statement): the process only reads it, as it would after many
 * lookups.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { chunked } from "../../src/intel/store/chunks.ts";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import { findEntity } from "../../src/intel/store/graph.ts";
import { bumpGraphVersion } from "../../src/intel/store/requests.ts";
import { newId, nowIso } from "../../src/intel/store/time.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type SimpleFake, startFakeVendor } from "../helpers/fake-vendor.ts";
import { type IntelProcess, startIntelProcessWithKey } from "../helpers/intel-process.ts";
import { assertSurvived } from "../helpers/real-process.ts";
import {
  HOSTILE_SHA1 as BIG,
  HOSTILE_PARENTS,
  hashlookupParent,
  hashlookupRecord,
  hostileHashlookupRecord,
} from "../hostile/intel-cases.ts";

const SMALL = `bb${"0".repeat(37)}2`; // an unrelated file sharing one of the parents
const ANSWER_CAP = 1000;
const SEEDED = 35_000; // past SQLite's 32,766 variables per statement; twice that past PostgreSQL's 65,535
const RESULT_CAP = 30_000;

/** Entities related to `rootId`, written many rows per statement (as fast as the database takes them). */
async function seedNeighbours(store: Store, rootId: string, count: number): Promise<void> {
  const now = nowIso();
  const entities = Array.from({ length: count }, (_, i) => ({
    id: newId(),
    super_type: "OBSERVABLE",
    type: "DOMAIN",
    name: `n${i}.seeded.example`,
    description: "",
    source_url: "",
    tlp: "WHITE",
    pap: "WHITE",
    attributes: "{}",
    created_at: now,
    updated_at: now,
  }));
  for (const rows of chunked(entities, 500)) await store.db.insertInto("entities").values(rows).execute();
  const relations = entities.map((e) => ({
    id: newId(),
    name: "seeded",
    description: "",
    obj_from: rootId,
    obj_to: e.id,
    attributes: "{}",
    created_at: now,
  }));
  for (const rows of chunked(relations, 500)) await store.db.insertInto("relations").values(rows).execute();
  await bumpGraphVersion(store.db);
}

/**
 * Lets this process's HTTP client see the keep-alive sockets the server closed while this process
 * was busy (SQLite writes, parsing a 30 MB answer): a request sent on one of them fails.
 */
const settle = () => new Promise((r) => setTimeout(r, 100));

type Answer = { status: number; id?: string; body: Record<string, unknown> };

/** Asks until the lookup is done; the request id comes from the first (201) answer. */
async function askUntilDone(server: IntelProcess, sha1: string, depth = 1): Promise<Answer> {
  let id: string | undefined;
  const deadline = Date.now() + 120_000;
  for (;;) {
    await settle();
    const res = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "SHA1", value: sha1, depth }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status === 201) id ??= String(body.id);
    if (res.status !== 201 || Date.now() > deadline)
      return { status: res.status, ...(id ? { id } : {}), body };
    await new Promise((r) => setTimeout(r, 200));
  }
}

describeOnEachDatabase(
  (kind) => `large graphs on ${kind} (real intel process)`,
  (db) => {
    let fake: SimpleFake;
    let server: IntelProcess;
    let bigId: string | undefined;
    before(async () => {
      fake = await startFakeVendor({
        [`/lookup/sha1/${BIG}`]: { body: hostileHashlookupRecord() },
        [`/lookup/sha1/${SMALL}`]: { body: hashlookupRecord(SMALL, [hashlookupParent(0)]) },
      });
      server = await startIntelProcessWithKey({
        DATABASE_URL: db.url,
        INTEL_CONNECTORS: "hashlookup",
        INTEL_VENDOR_URL_HASHLOOKUP: fake.url,
        INTEL_ANSWER_MAX_ENTITIES: String(ANSWER_CAP),
        INTEL_RESULT_MAX_ENTITIES: String(RESULT_CAP),
        INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0",
        INTEL_RETRY_AFTER: "1",
        // The 4 MB answer is read and normalised within it even on a machine shared by many builds.
        INTEL_VENDOR_TIMEOUT_MS: "120000",
      });
    });
    after(async () => {
      await server?.close();
      await fake?.close();
    });

    it("keeps INTEL_ANSWER_MAX_ENTITIES of an answer listing 40,000 parents, and says so", async () => {
      const answer = await askUntilDone(server, BIG);
      assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 500));
      bigId = answer.id;
      const sources = answer.body.sources as Record<string, { status: string; capped?: unknown }>;
      assert.equal(sources.hashlookup?.status, "ok");
      assert.deepEqual(sources.hashlookup?.capped, { received: HOSTILE_PARENTS + 3, kept: ANSWER_CAP });
      assert.equal(
        (answer.body.entities as unknown[]).length,
        ANSWER_CAP - 1,
        "the root and its kept neighbours",
      );
      assert.equal(answer.body.capped, false);
    });

    it("answers and exports a subject with more entities than a statement may bind", async () => {
      assert.ok(bigId, "the first test looked the file up");
      const store = await openStore(db.url);
      try {
        const root = await findEntity(store.db, { superType: "OBSERVABLE", type: "SHA1", name: BIG });
        assert.ok(root);
        await seedNeighbours(store, root.id, SEEDED);
      } finally {
        await store.close();
      }
      await settle();
      // Depth 2: the second ring is read from a frontier of 36,000 ids (two lists of them per statement).
      const answer = await askUntilDone(server, BIG, 2);
      assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
      assert.equal(answer.body.capped, true, "more are within reach than INTEL_RESULT_MAX_ENTITIES");
      assert.equal((answer.body.entities as unknown[]).length, RESULT_CAP - 1);
      await settle();
      const stix = await server.api(`/api/request/${bigId}/?format=stix&depth=2`);
      assert.equal(stix.status, 200);
      const bundle = (await stix.json()) as { objects: unknown[] };
      assert.ok(bundle.objects.length >= RESULT_CAP, `${bundle.objects.length} STIX objects`);
      // A bulk ask's results carry the same document, rendered off the event loop too.
      await settle();
      const bulk = await server.api("/api/requests/", {
        method: "POST",
        body: JSON.stringify({
          subjects: [{ super_type: "OBSERVABLE", type: "SHA1", value: BIG }],
          depth: 2,
        }),
      });
      const batch = (await bulk.json()) as { id: string; finished: boolean };
      assert.equal(bulk.status, 202);
      assert.equal(batch.finished, true, "answered from storage");
      await settle();
      const page = await server.api(`/api/batches/${batch.id}/?results=1`);
      assert.equal(page.status, 200);
      const [item] = ((await page.json()) as { items: Array<{ result: Record<string, unknown> }> }).items;
      assert.ok(item, "the batch's one item");
      assert.equal(item.result.capped, true);
      assert.equal((item.result.entities as unknown[]).length, RESULT_CAP - 1);
      await assertSurvived(server, () => server.api("/api/types/"));
    });

    it("answers an unrelated subject that shares a neighbour with the large one, at depth 3", async () => {
      assert.equal((await askUntilDone(server, SMALL)).status, 200);
      const answer = await askUntilDone(server, SMALL, 3);
      assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
      assert.equal(answer.body.capped, true);
      const names = new Set((answer.body.entities as Array<{ name: string }>).map((e) => e.name));
      assert.ok(names.has(BIG), "the shared parent leads to the large subject");
      assert.equal(names.size, RESULT_CAP - 1);
    });
  },
);
