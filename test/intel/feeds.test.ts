/**
 * Local feed copies on SQLite and PostgreSQL against a loopback server in each source's format:
 * the first pass downloads every file, the next ones ask conditionally (304 keeps the copy), a
 * failed refresh keeps the old copy with its age and why, and the MVT copies answer the connector.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { readIntelConfig } from "../../src/intel/config.ts";
import { mvt } from "../../src/intel/connectors/mvt/index.ts";
import {
  blocklistSources,
  feedReader,
  refreshFeed,
  refreshFeeds,
  scheduleFeeds,
} from "../../src/intel/domain/feeds.ts";
import type { Store } from "../../src/intel/store/db.ts";
import { listCopies } from "../../src/intel/store/feeds.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type FakeFeeds, mvtIndex, SPY_DOMAIN, startFakeFeeds, TOR_EXIT } from "../helpers/fake-feeds.ts";

const offlineHttp = {
  get: () => Promise.reject(new Error("a local connector made an HTTP call")),
  post: () => Promise.reject(new Error("a local connector made an HTTP call")),
};

describeOnEachDatabase("local feeds", (db) => {
  let store: Store;
  before(async () => {
    store = await db.store();
  });
  let fake: FakeFeeds;
  let config: ReturnType<typeof readIntelConfig>;
  before(async () => {
    fake = await startFakeFeeds();
    config = readIntelConfig({ ...fake.env(), INTEL_FEEDS_REFRESH_MINUTES: "60" });
  });
  after(() => fake?.close());

  /** Makes every feed due again (as if the interval had passed). */
  const age = () =>
    store.db.updateTable("feed_copies").set({ attempted_at: "2000-01-01T00:00:00.000Z" }).execute();
  const copy = async (id: string) => (await listCopies(store.db)).find((c) => c.id === id);

  it("downloads every list and every MVT collection once, then waits for the interval", async () => {
    const outcomes = await refreshFeeds(store.db, config);
    assert.deepEqual(
      Object.entries(outcomes).filter(([, o]) => o !== "updated"),
      [],
    );
    assert.ok(fake.requests.every((r) => !r.ifNoneMatch && !r.ifModifiedSince));
    assert.equal((await copy("tor-exits"))?.entries, 2);
    assert.equal((await copy("spamhaus-drop"))?.entries, 2);
    assert.equal((await copy("mvt:examplespy.stix2"))?.entries, 8); // the mutex has no taxonomy type; the OR gives two
    assert.equal((await copy("mvt:second.stix2"))?.entries, 0);
    const again = await refreshFeeds(store.db, config);
    assert.ok(
      Object.values(again).every((o) => o === "skipped"),
      JSON.stringify(again),
    );
  });

  it("asks again with If-None-Match and If-Modified-Since, and keeps the copy on 304", async () => {
    const before = await copy("tor-exits");
    await age();
    fake.requests.length = 0;
    const outcomes = await refreshFeeds(store.db, config);
    assert.ok(
      Object.values(outcomes).every((o) => o === "not_modified"),
      JSON.stringify(outcomes),
    );
    const tor = fake.requests.find((r) => r.path === "/torbulkexitlist");
    assert.match(tor?.ifNoneMatch ?? "", /^"[0-9a-f]{16}"$/);
    assert.equal(tor?.ifModifiedSince, "Fri, 27 Nov 2026 06:00:00 GMT");
    const after = await copy("tor-exits");
    assert.equal(after?.entries, 2);
    assert.equal(after?.fetched_at, before?.fetched_at);
    assert.ok((after?.checked_at ?? "") > (before?.checked_at ?? ""));
  });

  it("keeps the old copy, its age and why, when a refresh fails; a new file replaces it", async () => {
    const held = await copy("tor-exits");
    fake.failing.add("/torbulkexitlist");
    await age();
    const tor = blocklistSources(config).find((s) => s.id === "tor-exits")!;
    assert.equal(await refreshFeed(store.db, tor, config), "failed");
    const failed = await copy("tor-exits");
    assert.equal(failed?.error, "HTTP 500");
    assert.equal(failed?.fetched_at, held?.fetched_at);
    assert.equal(failed?.entries, 2);
    const found = await feedReader(store.db).find("tor-exits", {
      kinds: ["IPV4"],
      values: [TOR_EXIT],
    });
    assert.equal(found.length, 1, "the old copy still answers");
    fake.failing.delete("/torbulkexitlist");
    fake.set("/torbulkexitlist", "192.0.2.80\n");
    await age();
    assert.equal(await refreshFeed(store.db, tor, config), "updated");
    const replaced = await copy("tor-exits");
    assert.deepEqual([replaced?.entries, replaced?.error], [1, null]);
    assert.deepEqual(
      await feedReader(store.db).find("tor-exits", { kinds: ["IPV4"], values: [TOR_EXIT] }),
      [],
    );
  });

  it("one worker claims a due feed: a second caller at the same time skips it", async () => {
    await age();
    const tor = blocklistSources(config).find((s) => s.id === "tor-exits")!;
    const both = await Promise.all([refreshFeed(store.db, tor, config), refreshFeed(store.db, tor, config)]);
    assert.deepEqual(both.sort(), ["not_modified", "skipped"]);
  });

  it("answers the mvt connector from the copies: the spyware, its sources and references", async () => {
    const ctx = {
      http: offlineHttp,
      signal: AbortSignal.timeout(10_000),
      feeds: feedReader(store.db),
    };
    const ask = async (type: string, value: string) => {
      const subject = { superType: "OBSERVABLE", type, value };
      const raw = await mvt.fetch(subject, {}, ctx);
      return raw === null ? null : mvt.normalize(raw, subject);
    };
    const host = await ask("HOSTNAME", `cdn.${SPY_DOMAIN}`);
    assert.deepEqual(host?.entities[0]?.attributes, {
      spyware: "ExampleSpy",
      spyware_sources: "Amnesty International, Citizen Lab",
      spyware_collections: "Example Spyware Indicators of Compromise",
      matched_indicator: `DOMAIN ${SPY_DOMAIN}`,
    });
    assert.deepEqual(
      host?.relations.map((r) => `${r.from.name} ${r.name} ${r.to.name}`),
      [
        `cdn.${SPY_DOMAIN} associated threat ExampleSpy`,
        `https://example.org/research/examplespy-c2 documents cdn.${SPY_DOMAIN}`,
        `https://example.org/research/examplespy documents cdn.${SPY_DOMAIN}`,
      ],
    );
    assert.equal(host?.entities[1]?.type, "SPYWARE");
    for (const [type, value] of [
      ["EMAIL", "operator@example.org"],
      ["SHA256", "a".repeat(64)],
      ["NAMESPACE", "com.example.spyagent"],
      ["PROCESS", "spyagentd"],
      ["IPV6", "2001:db8::99"],
      ["URL", "https://spyware-c2.example.org/x"],
      ["IPV4", "192.0.2.99"],
    ])
      assert.equal(
        (await ask(type!, value!))?.entities[0]?.attributes?.spyware,
        "ExampleSpy",
        `${type} ${value}`,
      );
    assert.equal(await ask("DOMAIN", "example.org"), null, "a parent of a listed host is not listed");
    assert.equal(await ask("PROCESS", "not-a-taxonomy-type"), null);
  });

  it("downloads only the feeds of enabled connectors", async () => {
    await age();
    const onlyMvt = await refreshFeeds(store.db, config, { blocklists: false, mvt: true });
    assert.ok(
      Object.keys(onlyMvt).every((id) => id.startsWith("mvt")),
      Object.keys(onlyMvt).join(),
    );
    await age();
    fake.requests.length = 0;
    const stop = scheduleFeeds(store.db, config, { blocklists: false, mvt: false }, (err) => {
      throw err;
    });
    stop();
    assert.deepEqual(fake.requests, []);
  });

  it("forgets a collection the index no longer lists", async () => {
    fake.set("/indicators.yaml", mvtIndex(fake.url).split("  -\n    type: download")[0]!);
    await age();
    await refreshFeeds(store.db, config);
    const ids = (await listCopies(store.db)).map((c) => c.id).filter((id) => id.startsWith("mvt:"));
    assert.deepEqual(ids, ["mvt:examplespy.stix2"]);
  });
});
