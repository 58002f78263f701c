/**
 * What a lookup in the local feed copies costs (the blocklists and mvt connectors' fetch +
 * normalize): copies of realistic size on a fresh SQLite database — 60,000 MVT indicators, 2,000
 * Tor exits, 1,500 DROP ranges, 500 Feodo C2s, 50,000 OpenPhish URLs — and 2,000 lookups each.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { blocklists } from "../../src/intel/connectors/blocklists/index.ts";
import { mvt } from "../../src/intel/connectors/mvt/index.ts";
import type { Connector } from "../../src/intel/connectors/types.ts";
import { feedReader } from "../../src/intel/domain/feeds.ts";
import { openStore } from "../../src/intel/store/db.ts";
import { claimRefresh, type NewFeedEntry, replaceCopy } from "../../src/intel/store/feeds.ts";

const ip = (i: number) => `${11 + (i % 200)}.${(i >> 8) % 256}.${i % 256}.${(i * 7) % 254}`;

async function fill(db: Awaited<ReturnType<typeof openStore>>["db"], id: string, entries: NewFeedEntry[]) {
  await claimRefresh(db, { id, name: id, url: "http://127.0.0.1/" }, new Date().toISOString());
  await replaceCopy(db, id, { entries, etag: null, lastModified: null });
}

export async function feedLookups(): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-bench-feeds-"));
  const store = await openStore(`sqlite:${path.join(dir, "intel.db")}`);
  try {
    const info = JSON.stringify({ threat: "ExampleSpy", sources: ["Example Lab"], references: [] });
    await fill(
      store.db,
      "mvt:bench.stix2",
      Array.from({ length: 60_000 }, (_, i) => ({ kind: "DOMAIN", value: `c2-${i}.example.net`, info })),
    );
    await fill(
      store.db,
      "tor-exits",
      Array.from({ length: 2000 }, (_, i) => ({ kind: "IPV4", value: ip(i), info: "{}" })),
    );
    await fill(
      store.db,
      "feodo",
      Array.from({ length: 500 }, (_, i) => ({ kind: "IPV4", value: ip(i + 5000), info: "{}" })),
    );
    await fill(
      store.db,
      "spamhaus-drop",
      Array.from({ length: 1500 }, (_, i) => ({
        kind: "CIDR",
        value: `r${i}`,
        low: i * 65_536 * 40,
        high: i * 65_536 * 40 + 4095,
        info: "{}",
      })),
    );
    await fill(
      store.db,
      "openphish",
      Array.from({ length: 50_000 }, (_, i) => ({
        kind: "URL",
        value: `https://phish-${i}.example.com/login`,
        info: "{}",
      })),
    );
    const ctx = {
      http: { get: () => Promise.reject(), post: () => Promise.reject() },
      signal: AbortSignal.timeout(600_000),
      feeds: feedReader(store.db),
    };
    let worst = 0;
    const run = async (label: string, connector: Connector, type: string, value: (i: number) => string) => {
      const times: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const subject = { superType: "OBSERVABLE", type, value: value(i) };
        const t = performance.now();
        const raw = await connector.fetch(subject, {}, ctx);
        if (raw) connector.normalize(raw, subject);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const q = (p: number) => times[Math.floor(p * (times.length - 1))]!;
      worst = Math.max(worst, q(0.5));
      console.log(
        `${label.padEnd(34)} median ${(q(0.5) * 1000).toFixed(0)} µs, p90 ${(q(0.9) * 1000).toFixed(0)} µs`,
      );
    };
    console.log("\nlocal feed copies on SQLite (2,000 lookups each):");
    await run("blocklists, IPv4 (exact and ranges)", blocklists, "IPV4", (i) => ip(i * 3));
    await run("blocklists, URL", blocklists, "URL", (i) => `https://phish-${i * 30}.example.com/login`);
    await run("mvt, host name (and parents)", mvt, "HOSTNAME", (i) => `cdn.c2-${i * 30}.example.net`);
    return worst;
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
