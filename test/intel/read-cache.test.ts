/**
 * The read cache (store/read-cache.ts): a read is served from memory while nothing is committed,
 * and read again as soon as this connection or another process commits — a revoked key stops
 * working on the next request, a lookup finished by another process answers 200 on the next ask.
 * On SQLite and PostgreSQL, against a real `intel serve` process.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { readIntelConfig } from "../../src/intel/config.ts";
import { openIntelServices } from "../../src/intel/server.ts";
import {
  authenticateKey,
  createToken,
  createUser,
  listTokens,
  revokeToken,
} from "../../src/intel/store/accounts.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import { createReadCache } from "../../src/intel/store/read-cache.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";

async function newKey(store: Store, name: string) {
  const user = await createUser(store.db, name, "a-long-password", false);
  const { key } = await createToken(store.db, user.id);
  const [token] = await listTokens(store.db, user.id);
  return { key, userId: user.id, tokenId: token!.id };
}

describeOnEachDatabase("read cache", (db) => {
  let mine: Store;
  let other: Store;
  before(async () => {
    mine = await db.store();
    other = await openStore(db.url); // another connection: what another process is to this one
  });
  after(async () => {
    await other.close();
  });

  it("serves a read from memory while nothing is committed", async () => {
    const cache = createReadCache(mine, 100);
    let loads = 0;
    const load = async () => ++loads;
    // PostgreSQL's stamp moves with any commit in the cluster (other databases too): a pair of
    // views with no commit between them comes within a few tries on a shared server.
    let servedFromMemory = false;
    for (let attempt = 0; attempt < 20 && !servedFromMemory; attempt++) {
      const first = await (await cache.view()).read("k", load);
      const second = await (await cache.view()).read("k", load);
      servedFromMemory = second === first;
    }
    assert.ok(servedFromMemory, `${loads} loads, never one served from memory`);
    const { hits, misses } = cache.counts();
    assert.ok(hits >= 1, "a hit is counted");
    assert.equal(misses, loads, "every load is a miss");
  });

  it("is off with 0 entries: every read loads", async () => {
    const cache = createReadCache(mine, 0);
    let loads = 0;
    for (let i = 0; i < 3; i++) await (await cache.view()).read("k", async () => ++loads);
    assert.equal(loads, 3);
  });

  it("sees a key revoked through another connection on the next view", async () => {
    const cache = createReadCache(mine, 100);
    const { key, userId, tokenId } = await newKey(other, `revoked-${db.kind}`);
    assert.equal((await authenticateKey(mine.db, key, await cache.view()))?.id, userId);
    assert.equal((await authenticateKey(mine.db, key, await cache.view()))?.id, userId);
    assert.equal(await revokeToken(other.db, userId, tokenId), true);
    assert.equal(await authenticateKey(mine.db, key, await cache.view()), undefined);
  });

  it("sees this connection's own commits on the next view", async () => {
    const cache = createReadCache(mine, 100);
    const { key, userId, tokenId } = await newKey(mine, `own-${db.kind}`);
    assert.equal((await authenticateKey(mine.db, key, await cache.view()))?.id, userId);
    await revokeToken(mine.db, userId, tokenId);
    assert.equal(await authenticateKey(mine.db, key, await cache.view()), undefined);
  });
});

describeOnEachDatabase("read cache across processes", (db) => {
  let vt: FakeVendor;
  let server: ChildServer;
  let store: Store;
  before(async () => {
    vt = await startFakeVirusTotal({ [`files/${MD5}`]: vtFixture("file") });
    store = await db.store();
    await addCredentials(store.db, "virustotal", { api_key: VT_KEY });
    server = await startChildServer(
      ["intel", "serve", "--no-worker"],
      {
        DATABASE_URL: db.url,
        INTEL_CONNECTORS: "virustotal",
        INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
        INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0",
      },
      "/",
      "INTEL_PORT",
    );
  });
  after(async () => {
    await server.stop();
    await vt.close();
  });

  const ask = (key: string) =>
    fetch(`${server.url}/api/request/`, {
      method: "POST",
      headers: { authorization: `Token ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value: MD5 }),
    });

  it("answers 200 on the next ask once another process finished the lookup, and 401 once the key is revoked there", async () => {
    const { key, userId, tokenId } = await newKey(store, `colander-${db.kind}`);
    const first = await ask(key);
    assert.equal(first.status, 201);
    const { id } = (await first.json()) as { id: string };
    const again = await ask(key); // the same request under way, possibly from memory
    assert.equal(again.status, 201);
    assert.equal(((await again.json()) as { id: string }).id, id);
    // This test process runs the lookup, as an `intel worker` process would.
    const worker = await openIntelServices(
      readIntelConfig({
        DATABASE_URL: db.url,
        INTEL_CONNECTORS: "virustotal",
        INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
      }),
    );
    try {
      await worker.requests.processRequest(id);
    } finally {
      await worker.close();
    }
    const done = await ask(key);
    assert.equal(done.status, 200);
    const doc = (await done.json()) as { root_entity: { name: string }; sources: Record<string, unknown> };
    assert.equal(doc.root_entity.name, MD5);
    assert.ok(doc.sources.virustotal);
    assert.equal((await ask(key)).status, 200);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /intel_read_cache_reads_total\{result="hit"[^}]*\} \d+/);
    assert.match(metrics, /intel_read_cache_reads_total\{result="miss"[^}]*\} [1-9]/);
    assert.equal(await revokeToken(store.db, userId, tokenId), true);
    assert.equal((await ask(key)).status, 401);
  });
});
