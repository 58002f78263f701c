/**
 * The files analyses' queries on SQLite and PostgreSQL: a row through pending → done with its node
 * index, the history's search by any node's name or hash, visibility (own or shared), the cache
 * key, leases of interrupted runs.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { createUser } from "../../../src/intel/store/accounts.ts";
import {
  failAnalysis,
  findCached,
  finishAnalysis,
  getAnalysis,
  insertAnalysis,
  interruptedAnalyses,
  leaseAnalysis,
  listAnalyses,
  setShared,
} from "../../../src/intel/store/analyses.ts";
import type { AnalysesTable } from "../../../src/intel/store/analysis-schema.ts";
import { describeOnEachDatabase } from "../../helpers/databases.ts";
import { analysisRow } from "./fixtures.ts";

const hex = (c: string, n: number) => c.repeat(n);

/** An analysis row as these tests know it: an email of 5 GB, hashed "a…". */
const row = (id: string, userId: number, over: Partial<AnalysesTable> = {}) =>
  analysisRow(id, userId, {
    name: "invoice.eml",
    sha256: hex("a", 64),
    sha1: hex("a", 40),
    md5: hex("a", 32),
    size: 5_000_000_000,
    ...over,
  });

describeOnEachDatabase("analyses store", (database) => {
  it("finishes a pending analysis once, and finds it by any node's name or hash", async () => {
    const { db } = await database.store();
    const alice = await createUser(db, "alice", "alice-password", false);
    const bob = await createUser(db, "bob", "bob-password", false);
    await insertAnalysis(db, row("a1", alice.id));
    await insertAnalysis(db, row("b1", bob.id, { name: "other.bin", sha256: hex("b", 64) }));
    const nodes = [
      {
        path: "invoice.eml",
        name: "invoice.eml",
        sha256: hex("a", 64),
        sha1: hex("a", 40),
        md5: hex("a", 32),
      },
      {
        path: "invoice.eml › pay_100%.zip",
        name: "pay_100%.zip",
        sha256: hex("c", 64),
        sha1: null,
        md5: hex("d", 32),
      },
    ];
    const done = { result: "{}", verdict: "malicious", nodes, filePath: null };
    assert.equal(await finishAnalysis(db, "a1", done), true);
    assert.equal(await finishAnalysis(db, "a1", done), false, "finished once only");
    const a1 = await getAnalysis(db, "a1");
    assert.deepEqual(
      [a1?.status, a1?.verdict, a1?.username, a1?.size],
      ["done", "malicious", "alice", 5_000_000_000],
    );
    const ids = async (f: Parameters<typeof listAnalyses>[1]) =>
      (await listAnalyses(db, f, { limit: 10, offset: 0 })).rows.map((r) => r.id);
    assert.deepEqual(await ids({ q: hex("C", 64) }), ["a1"], "a child's sha256, any case");
    assert.deepEqual(await ids({ q: hex("d", 32) }), ["a1"], "a child's md5");
    assert.deepEqual(await ids({ q: "100%.Z" }), ["a1"], "a child's name, % as text");
    assert.deepEqual(await ids({ q: "100_" }), [], "_ as text");
    assert.deepEqual(await ids({ verdict: "malicious" }), ["a1"]);
    assert.deepEqual((await ids({})).sort(), ["a1", "b1"]);
    assert.deepEqual(await ids({ visibleTo: bob.id }), ["b1"]);
    assert.deepEqual(await ids({ username: "alice" }), ["a1"]);
    assert.equal(await setShared(db, "a1", true), true);
    assert.deepEqual((await ids({ visibleTo: bob.id })).sort(), ["a1", "b1"]);
    const page = await listAnalyses(db, {}, { limit: 1, offset: 0 });
    assert.deepEqual([page.rows.length, page.total], [1, 2]);
    const key = { sha256: hex("a", 64), rulesKey: hex("0", 64) };
    assert.equal((await findCached(db, key, new Date(Date.now() - 60_000).toISOString()))?.id, "a1");
    assert.equal(await findCached(db, key, new Date(Date.now() + 60_000).toISOString()), undefined);
    assert.equal(await findCached(db, { ...key, rulesKey: hex("1", 64) }, "2000-01-01"), undefined);
  });

  it("indexes a tree of 1,200 nodes (in slices) and finds the analysis by its last node's hash", async () => {
    const { db } = await database.store();
    const dave = await createUser(db, "dave", "dave-password", false);
    await insertAnalysis(db, row("d1", dave.id, { sha256: hex("e", 64) }));
    const nodes = Array.from({ length: 1200 }, (_, i) => {
      const h = i.toString(16).padStart(64, "f");
      return { path: `big.zip › m${i}`, name: `m${i}`, sha256: h, sha1: null, md5: null };
    });
    assert.equal(
      await finishAnalysis(db, "d1", { result: "{}", verdict: "clean", nodes, filePath: null }),
      true,
    );
    const last = (1199).toString(16).padStart(64, "f");
    const found = await listAnalyses(db, { q: last }, { limit: 10, offset: 0 });
    assert.deepEqual(
      found.rows.map((r) => r.id),
      ["d1"],
    );
  });

  it("hands an interrupted analysis to one runner, and fails one with a reason", async () => {
    const { db } = await database.store();
    const carol = await createUser(db, "carol", "carol-password", false);
    const past = new Date(Date.now() - 1000).toISOString();
    const future = new Date(Date.now() + 60_000).toISOString();
    await insertAnalysis(db, row("c1", carol.id, { lease_until: past }));
    await insertAnalysis(db, row("c2", carol.id));
    assert.deepEqual(
      (await interruptedAnalyses(db, 10)).map((r) => r.id),
      ["c1"],
    );
    assert.equal(await leaseAnalysis(db, "c2", future), false, "held by its runner");
    assert.equal(await leaseAnalysis(db, "c1", future), true);
    assert.equal(await leaseAnalysis(db, "c1", future), false, "taken once");
    await failAnalysis(db, "c1", "interrupted");
    const c1 = await getAnalysis(db, "c1");
    assert.deepEqual([c1?.status, c1?.error, c1?.lease_until], ["failed", "interrupted", null]);
  });
});
