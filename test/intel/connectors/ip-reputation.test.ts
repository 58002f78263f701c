import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { abuseipdb } from "../../../src/intel/connectors/abuseipdb/index.ts";
import { normalizeAbuseIpdb } from "../../../src/intel/connectors/abuseipdb/normalize.ts";
import { greynoise } from "../../../src/intel/connectors/greynoise/index.ts";
import { normalizeGreyNoise } from "../../../src/intel/connectors/greynoise/normalize.ts";
import { VendorError } from "../../../src/intel/connectors/types.ts";
import { fixture, vendorContext } from "../../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";

const IP = "198.51.100.23";
const subject = { superType: "OBSERVABLE", type: "IPV4", value: IP };

describe("GreyNoise and AbuseIPDB: normalize", () => {
  it("GreyNoise: noise, RIOT, classification, a scanning event", () => {
    const f = normalizeGreyNoise(fixture("greynoise", "found"), subject);
    assert.deepEqual(f.entities[0]?.attributes, {
      greynoise_noise: "true",
      greynoise_riot: "false",
      greynoise_classification: "malicious",
      is_malicious: "true",
    });
    assert.equal(f.entities[0]?.sourceUrl, "https://viz.greynoise.io/ip/198.51.100.23");
    assert.deepEqual(
      f.events.map((e) => [e.type, e.firstSeen]),
      [["ATTACK", "2026-11-20T00:00:00Z"]],
    );
    const riot = normalizeGreyNoise(fixture("greynoise", "riot"), { ...subject, value: "192.0.2.53" });
    assert.equal(riot.entities[0]?.attributes?.operator, "Example DNS");
    assert.equal(riot.entities[0]?.attributes?.is_malicious, "false");
    assert.equal(riot.events.length, 0);
  });

  it("AbuseIPDB: score, ISP, domain and hostnames, one ALERT event per report", () => {
    const f = normalizeAbuseIpdb(fixture("abuseipdb", "found"), subject);
    assert.deepEqual(f.entities[0]?.attributes, {
      abuse_confidence_score: "87",
      is_malicious: "true",
      country: "NL",
      usage_type: "Data Center/Web Hosting/Transit",
      isp: "Example Hosting B.V.",
      is_tor: "false",
      total_reports: "41",
      distinct_reporters: "12",
    });
    assert.deepEqual(
      f.entities.slice(1).map((e) => `${e.type}:${e.name}`),
      ["DOMAIN:example-hosting.nl", "HOSTNAME:vps23.example-hosting.nl"],
    );
    assert.deepEqual(
      f.relations.map((r) => r.name),
      ["belongs to", "resolves"],
    );
    assert.deepEqual(
      f.events.map((e) => e.name),
      ["Reported to AbuseIPDB: brute-force, SSH", "Reported to AbuseIPDB: port scan"],
    );
  });
});

describe("GreyNoise and AbuseIPDB: fetch", () => {
  let fake: SimpleFake;
  before(async () => {
    fake = await startFakeVendor({
      [`/v3/community/${IP}`]: { body: fixture("greynoise", "found") },
      "/v3/community/192.0.2.200": { status: 404, body: fixture("greynoise", "not_found") },
      [`/api/v2/check?ipAddress=${IP}&maxAgeInDays=90&verbose=`]: { body: fixture("abuseipdb", "found") },
      "/api/v2/check?ipAddress=192.0.2.1&maxAgeInDays=90&verbose=": {
        status: 401,
        body: fixture("abuseipdb", "auth_error"),
      },
    });
  });
  after(() => fake.close());
  const ctx = () => vendorContext(fake.url);

  it("GreyNoise: sends the key header; 404 means not observed", async () => {
    assert.ok(await greynoise.fetch(subject, { api_key: "gn-key" }, ctx()));
    assert.equal(fake.calls.at(-1)?.headers.key, "gn-key");
    assert.equal(
      await greynoise.fetch({ ...subject, value: "192.0.2.200" }, { api_key: "gn-key" }, ctx()),
      null,
    );
  });

  it("AbuseIPDB: check endpoint with its query; a bad key is invalid credentials", async () => {
    assert.ok(await abuseipdb.fetch(subject, { api_key: "ab-key" }, ctx()));
    assert.equal(fake.calls.at(-1)?.headers.key, "ab-key");
    await assert.rejects(
      abuseipdb.fetch({ ...subject, value: "192.0.2.1" }, { api_key: "bad" }, ctx()),
      (err: unknown) => err instanceof VendorError && err.code === "invalid_credentials",
    );
  });
});
