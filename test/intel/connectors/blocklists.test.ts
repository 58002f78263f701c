/**
 * The blocklists connector's normalize on its answers, and each list's parser on a file in that
 * list's real format (test/helpers/fake-feeds.ts); lookups against copies are in test/intel/feeds.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BLOCKLISTS } from "../../../src/intel/connectors/blocklists/lists.ts";
import { normalizeBlocklists } from "../../../src/intel/connectors/blocklists/normalize.ts";
import { fixture } from "../../helpers/connectors.ts";
import { type FakeFeeds, startFakeFeeds } from "../../helpers/fake-feeds.ts";

const ip = (value: string) => ({ superType: "OBSERVABLE", type: "IPV4", value });
const parser = (id: string) => BLOCKLISTS.find((l) => l.id === id)!.parse;

describe("blocklists connector", () => {
  it("normalizes a botnet C2 on Feodo Tracker and in a DROP range", () => {
    const f = normalizeBlocklists(fixture("blocklists", "botnet-c2"), ip("198.51.100.23"));
    assert.deepEqual(f.entities[0]?.attributes, {
      blocklisted: "Feodo Tracker botnet C2 (abuse.ch), Spamhaus DROP",
      botnet_c2: "QakBot",
      spamhaus_sbl: "SBL000001",
      blocklist_copies: "feodo 2026-11-27T06:00:00.000Z, spamhaus-drop 2026-11-27T06:00:00.000Z",
    });
    assert.deepEqual(f.entities[1], { superType: "THREAT", type: "MALWARE", name: "QakBot" });
    assert.deepEqual(
      f.events.map((e) => [e.name, e.firstSeen, e.lastSeen]),
      [
        [
          "Listed on Feodo Tracker botnet C2 (abuse.ch)",
          "2026-10-30T12:00:00.000Z",
          "2026-11-26T00:00:00.000Z",
        ],
        ["Listed on Spamhaus DROP", "2026-11-27T06:00:00.000Z", "2026-11-27T06:00:00.000Z"],
      ],
    );
  });

  it("calls a Tor exit a Tor exit, not blocklisted", () => {
    const f = normalizeBlocklists(fixture("blocklists", "tor-exit"), ip("192.0.2.66"));
    assert.deepEqual(f.entities[0]?.attributes, {
      tor_exit: "true",
      blocklist_copies: "tor-exits 2026-11-27T06:00:00.000Z",
    });
    for (const odd of [{}, { matches: "x" }, []])
      assert.throws(() => normalizeBlocklists(odd, ip("192.0.2.66")));
  });

  describe("parsers, on each list's format", () => {
    let fake: FakeFeeds;
    const body = async (path: string) => (await fetch(fake.url + path)).text();
    it("reads every list", async () => {
      fake = await startFakeFeeds();
      try {
        assert.deepEqual(
          parser("tor-exits")(await body("/torbulkexitlist")).map((e) => e.value),
          ["192.0.2.66", "192.0.2.67"],
        );
        assert.deepEqual(parser("feodo")(await body("/ipblocklist.csv"))[0], {
          kind: "IPV4",
          value: "198.51.100.23",
          info: {
            first_seen: "2026-10-30 12:00:00",
            port: "443",
            status: "online",
            last_online: "2026-11-26",
            malware: "QakBot",
          },
        });
        assert.deepEqual(parser("sslbl")(await body("/sslipblacklist.csv")), [
          { kind: "IPV4", value: "198.51.100.23", info: { first_seen: "2026-11-20 10:00:00", port: "443" } },
        ]);
        assert.deepEqual(parser("spamhaus-drop")(await body("/drop.txt"))[0], {
          kind: "CIDR",
          value: "203.0.113.0/24",
          low: 3405803776,
          high: 3405804031,
          info: { sbl: "SBL000001" },
        });
        assert.deepEqual(parser("spamhaus-edrop")(await body("/edrop.txt")), []);
        assert.deepEqual(
          parser("openphish")(await body("/feed.txt")).map((e) => e.value),
          ["http://login-verify.example.net/account/", "https://secure-update.example.com/verify.php"],
        );
        assert.deepEqual(parser("tor-exits")("not an address\n<html>\n"), []);
        assert.deepEqual(
          parser("openphish")(`https://x.example/${"a".repeat(600)}\n`),
          [],
          "too long to index",
        );
      } finally {
        await fake.close();
      }
    });
  });
});
