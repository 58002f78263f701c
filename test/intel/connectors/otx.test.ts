import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { otx } from "../../../src/intel/connectors/otx/index.ts";
import { normalizeOtx } from "../../../src/intel/connectors/otx/normalize.ts";
import { VendorError } from "../../../src/intel/connectors/types.ts";
import { fixture as loadFixture, vendorContext } from "../../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";

const fixture = (name: string) => loadFixture("otx", name);
const domain = { superType: "OBSERVABLE", type: "DOMAIN", value: "example.org" };

describe("otx connector", () => {
  it("turns pulses into reports that document the subject, with families, adversaries and passive DNS", () => {
    const f = normalizeOtx({ general: fixture("general"), passive_dns: fixture("passive_dns") }, domain);
    assert.deepEqual(f.entities[0]?.attributes, {
      otx_pulse_count: "1",
      otx_reputation: "0",
      country: "NL",
      asn: "AS64500",
      tags: "spyware,exploit",
    });
    const report = f.entities.find((e) => e.superType === "EXT_DOC");
    assert.equal(report?.name, "Mercenary spyware infrastructure");
    assert.equal(report?.type, "REPORT");
    assert.equal(report?.tlp, "WHITE");
    assert.equal(report?.sourceUrl, "https://otx.alienvault.com/pulse/6500aa11bb22cc33dd44ee55");
    assert.equal(report?.attributes?.author, "researcher");
    const rel = (name: string) =>
      f.relations.filter((r) => r.name === name).map((r) => `${r.from.name}→${r.to.name}`);
    assert.deepEqual(rel("documents"), ["Mercenary spyware infrastructure→example.org"]);
    assert.deepEqual(rel("associated threat"), ["example.org→Pegasus"]);
    assert.deepEqual(rel("mentions"), ["Mercenary spyware infrastructure→Example Group"]);
    assert.deepEqual(rel("resolves"), ["example.org→192.0.2.10", "example.org→2001:db8::10"]);
    assert.deepEqual(
      f.events.map((e) => [e.type, e.name, e.firstSeen, e.lastSeen]),
      [
        ["PASSIVE_DNS", "A example.org → 192.0.2.10", "2026-01-01T00:00:00Z", "2026-11-01T00:00:00Z"],
        [
          "PASSIVE_DNS",
          "AAAA www.example.org → 2001:db8::10",
          "2026-03-01T00:00:00Z",
          "2026-03-02T00:00:00Z",
        ],
      ],
    );
  });

  it("an IP's passive DNS points hostnames to it", () => {
    const f = normalizeOtx(
      { passive_dns: fixture("passive_dns") },
      { superType: "OBSERVABLE", type: "IPV4", value: "192.0.2.10" },
    );
    assert.ok(
      f.relations.some(
        (r) => r.name === "resolves" && r.from.name === "example.org" && r.to.name === "192.0.2.10",
      ),
    );
  });

  it("an unknown indicator gives the root alone with a zero pulse count", () => {
    const f = normalizeOtx({ general: fixture("general_empty") }, { ...domain, value: "unknown.example" });
    assert.equal(f.entities.length, 1);
    assert.equal(f.entities[0]?.attributes?.otx_pulse_count, "0");
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor({
        "/api/v1/indicators/domain/example.org/general": { body: fixture("general") },
        "/api/v1/indicators/domain/example.org/passive_dns": { body: fixture("passive_dns") },
        [`/api/v1/indicators/file/${"a".repeat(64)}/general`]: { body: fixture("general_empty") },
        "/api/v1/indicators/domain/locked.example/general": { status: 403, body: fixture("auth_error") },
      });
    });
    after(() => fake.close());
    const ctx = () => vendorContext(fake.url);

    it("asks general and passive_dns for a domain, only general for a file, with the key header", async () => {
      const raw = (await otx.fetch(domain, { api_key: "otx-key" }, ctx())) as {
        general: unknown;
        passive_dns: unknown;
      };
      assert.ok(raw.general && raw.passive_dns);
      assert.equal(fake.calls.at(-1)?.headers["x-otx-api-key"], "otx-key");
      const before = fake.calls.length;
      await otx.fetch(
        { superType: "OBSERVABLE", type: "SHA256", value: "a".repeat(64) },
        { api_key: "otx-key" },
        ctx(),
      );
      assert.deepEqual(
        fake.calls.slice(before).map((c) => c.url),
        [`/api/v1/indicators/file/${"a".repeat(64)}/general`],
      );
    });

    it("reports a refused key as invalid credentials", async () => {
      await assert.rejects(
        otx.fetch({ ...domain, value: "locked.example" }, { api_key: "bad" }, ctx()),
        (e: unknown) => e instanceof VendorError && e.code === "invalid_credentials",
      );
    });
  });
});

describe("otx: threat actors", () => {
  const actor = { superType: "ACTOR", type: "THREAT_ACTOR", value: "Example Group" };

  it("keeps the pulses naming the actor (adversary or tag) with their malware and techniques", () => {
    const f = normalizeOtx(fixture("search_pulses"), actor);
    assert.deepEqual(f.entities[0]?.attributes, {
      otx_pulse_count: "2",
      targeted_countries: "NL,FR",
      industries: "Media",
    });
    const rel = (name: string) =>
      f.relations.filter((r) => r.name === name).map((r) => `${r.from.name}→${r.to.name}`);
    assert.deepEqual(rel("documents"), [
      "Mercenary spyware infrastructure→Example Group",
      "Example Group returns with new loaders→Example Group",
    ]);
    assert.deepEqual(rel("uses"), [
      "Example Group→Pegasus",
      "Example Group→T1566 - Phishing",
      "Example Group→GuLoader",
      "Example Group→T1204 - User Execution",
    ]);
    assert.ok(!f.entities.some((e) => e.name === "Unrelated phishing kit"));
    assert.deepEqual(normalizeOtx(fixture("search_pulses"), { ...actor, value: "Nobody" }).entities, []);
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor({
        "/api/v1/search/pulses?q=Example+Group&limit=20": { body: fixture("search_pulses") },
        "/api/v1/search/pulses?q=Nobody&limit=20": { body: fixture("search_pulses_empty") },
      });
    });
    after(() => fake.close());

    it("searches pulses with the key header; no pulse is not known", async () => {
      const ask = (value: string) =>
        otx.fetch({ ...actor, value }, { api_key: "otx-key" }, vendorContext(fake.url));
      assert.ok(await ask("Example Group"));
      assert.equal(await ask("Nobody"), null);
      assert.equal(fake.calls[0]?.headers["x-otx-api-key"], "otx-key");
    });
  });
});
