import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { misp } from "../../../src/intel/connectors/misp/index.ts";
import { normalizeMisp } from "../../../src/intel/connectors/misp/normalize.ts";
import { urlscan, urlscanQuery } from "../../../src/intel/connectors/urlscan/index.ts";
import { normalizeUrlscan } from "../../../src/intel/connectors/urlscan/normalize.ts";
import { askVendors } from "../../../src/intel/domain/fanout.ts";
import { fixture, vendorContext } from "../../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";

const domain = { superType: "OBSERVABLE", type: "DOMAIN", value: "example.org" };
/** No quota: every attempt may go. */
const openGate = { acquire: async () => undefined, release: async () => undefined };

describe("urlscan connector", () => {
  it("builds quoted search queries per type", () => {
    assert.equal(urlscanQuery(domain), 'domain:"example.org"');
    assert.equal(urlscanQuery({ ...domain, type: "IPV4", value: "192.0.2.1" }), 'ip:"192.0.2.1"');
    assert.equal(urlscanQuery({ ...domain, type: "URL", value: 'http://x/"a' }), 'page.url:"http://x/\\"a"');
  });

  it("turns scans into HIT events with the page's IP and ASN", () => {
    const f = normalizeUrlscan(fixture("urlscan", "search"), domain);
    assert.equal(f.entities[0]?.attributes?.urlscan_scans, "1");
    assert.deepEqual(
      f.entities.slice(1).map((e) => `${e.type}:${e.name}`),
      ["IPV4:192.0.2.10", "ASN:AS64500"],
    );
    assert.deepEqual(
      f.relations.map((r) => `${r.name}:${r.to.name}`),
      ["resolves:192.0.2.10"],
    );
    assert.deepEqual(
      f.events.map((e) => [e.type, e.firstSeen, e.attributes?.title]),
      [["HIT", "2026-11-20T08:00:00.000Z", "Sign in"]],
    );
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor({
        "/api/v1/search/?q=domain%3A%22example.org%22&size=50": { body: fixture("urlscan", "search") },
        "/api/v1/search/?q=domain%3A%22quiet.example%22&size=50": { body: fixture("urlscan", "empty") },
      });
    });
    after(() => fake.close());
    const ctx = () => vendorContext(fake.url);
    it("searches with the API-Key header; no results is null", async () => {
      assert.ok(await urlscan.fetch(domain, { api_key: "us-key" }, ctx()));
      assert.equal(fake.calls.at(-1)?.headers["api-key"], "us-key");
      assert.equal(
        await urlscan.fetch({ ...domain, value: "quiet.example" }, { api_key: "us-key" }, ctx()),
        null,
      );
    });
  });
});

describe("misp connector", () => {
  it("turns the events holding the value into reports that document it, with TLP and tags", () => {
    const f = normalizeMisp(fixture("misp", "found"), domain);
    assert.deepEqual(f.entities[0]?.attributes, {
      misp_attribute_count: "1",
      misp_to_ids: "true",
      tags: 'tlp:amber,misp-galaxy:threat-actor="Example Group"',
      category: "Network activity",
    });
    const report = f.entities[1];
    assert.equal(report?.name, "MISP event 42: Targeted phishing against journalists");
    assert.equal(report?.tlp, "AMBER");
    assert.equal(report?.attributes?.threat_level, "medium");
    assert.deepEqual(
      f.relations.map((r) => r.name),
      ["documents"],
    );
    assert.equal(f.events[0]?.type, "ALERT");
  });

  describe("against an instance whose URL is a credential", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor({
        "/attributes/restSearch": (body) => ({
          body: body.includes("threat-actor")
            ? fixture("misp", body.includes("Example Group") ? "actor" : "empty")
            : fixture("misp", body.includes("example.org") ? "found" : "empty"),
        }),
      });
    });
    after(() => fake.close());

    it("posts restSearch to the configured instance with the key in Authorization", async () => {
      const config = {
        vendorTimeoutMs: 2000,
        vendorRetries: 0,
        vendorMaxBackoffMs: 0,
        vendorConcurrency: 2,
        vendorUrls: {},
      };
      const [answer] = await askVendors(domain, [misp], {
        config,
        takeSlot: async () => ({ credentials: { api_key: "misp-key", url: fake.url }, gate: openGate }),
      });
      assert.equal(answer?.outcome.status, "ok", answer?.outcome.error ?? "");
      const call = fake.calls.at(-1)!;
      assert.equal(call.method, "POST");
      assert.equal(call.headers.authorization, "misp-key");
      assert.equal(JSON.parse(call.body).value, "example.org");
      const [none] = await askVendors({ ...domain, value: "quiet.example" }, [misp], {
        config,
        takeSlot: async () => ({ credentials: { api_key: "k", url: fake.url }, gate: openGate }),
      });
      assert.equal(none?.outcome.status, "not_found");
      const actor = { superType: "ACTOR", type: "THREAT_ACTOR", value: "Example Group" };
      const [found] = await askVendors(actor, [misp], {
        config,
        takeSlot: async () => ({ credentials: { api_key: "misp-key", url: fake.url }, gate: openGate }),
      });
      assert.equal(found?.outcome.status, "ok", found?.outcome.error ?? "");
      assert.deepEqual(JSON.parse(fake.calls.at(-1)!.body).tags, [
        'misp-galaxy:threat-actor="Example Group"',
      ]);
    });
  });

  it("a threat actor: its galaxy tag's attributes are attributed to it, their events document it", () => {
    const f = normalizeMisp(fixture("misp", "actor"), {
      superType: "ACTOR",
      type: "THREAT_ACTOR",
      value: "Example Group",
    });
    assert.equal(f.entities[0]?.attributes?.misp_attribute_count, "3");
    assert.deepEqual(
      f.relations.map((r) => `${r.from.name} ${r.name} ${r.to.name}`),
      [
        "203.0.113.7 attributed to Example Group",
        "MISP event 77: Example Group targets newsrooms documents Example Group",
        "update-check.example.net attributed to Example Group",
        "MISP event 77: Example Group targets newsrooms documents Example Group",
        "MISP event 78: Example Group infrastructure, part 2 documents Example Group",
      ],
    );
    assert.equal(f.entities.find((e) => e.name === "203.0.113.7")?.type, "IPV4");
  });
});
