import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { abuseDate } from "../../../src/intel/connectors/abusech.ts";
import { createVendorHttp } from "../../../src/intel/connectors/http.ts";
import { malwarebazaar } from "../../../src/intel/connectors/malwarebazaar/index.ts";
import { normalizeMalwareBazaar } from "../../../src/intel/connectors/malwarebazaar/normalize.ts";
import { threatfox } from "../../../src/intel/connectors/threatfox/index.ts";
import { normalizeThreatFox } from "../../../src/intel/connectors/threatfox/normalize.ts";
import { VendorError } from "../../../src/intel/connectors/types.ts";
import { urlhaus } from "../../../src/intel/connectors/urlhaus/index.ts";
import { normalizeUrlhaus } from "../../../src/intel/connectors/urlhaus/normalize.ts";
import { fixture, vendorContext } from "../../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";

const KEY = { api_key: "abuse-key-123" };

describe("ThreatFox threat actors", () => {
  it("turns the IOCs tagged with the actor into entities attributed to it, with their malware and sightings", () => {
    const actor = { superType: "ACTOR", type: "THREAT_ACTOR", value: "Example Group" };
    const f = threatfox.normalize(fixture("threatfox", "taginfo"), actor);
    assert.deepEqual(f.entities[0]?.attributes, {
      threatfox_ioc_count: "4",
      threat_types: "botnet_cc,payload_delivery,payload",
    });
    assert.deepEqual(
      f.relations.map((r) => `${r.from.type}:${r.from.name} ${r.name} ${r.to.name}`),
      [
        "THREAT_ACTOR:Example Group uses SparrowDoor",
        "SERVICE:203.0.113.7:8443/tcp attributed to Example Group",
        "DOMAIN:update-check.example.net attributed to Example Group",
        "SHA256:9f2c3b0d8a1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c attributed to Example Group",
      ],
    );
    assert.deepEqual(
      f.events.map((e) => [e.involved.name, e.firstSeen, e.lastSeen]),
      [
        ["203.0.113.7:8443/tcp", "2026-09-12T06:40:11.000Z", "2026-09-12T06:40:11.000Z"],
        ["update-check.example.net", "2026-09-13T10:00:00.000Z", "2026-10-01T08:00:00.000Z"],
        [
          "9f2c3b0d8a1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c",
          "2026-09-14T12:30:00.000Z",
          "2026-09-14T12:30:00.000Z",
        ],
      ],
    );
  });
});

describe("abuse.ch connectors: normalize", () => {
  it("reads abuse.ch dates", () => {
    assert.equal(abuseDate("2026-10-02 08:15:00 UTC"), "2026-10-02T08:15:00.000Z");
    assert.equal(abuseDate("2026-09-01 12:00:00"), "2026-09-01T12:00:00.000Z");
    assert.equal(abuseDate(null), undefined);
  });

  it("ThreatFox: confidence, threat types, malware family, a HIT event", () => {
    const subject = { superType: "OBSERVABLE", type: "IPV4", value: "198.51.100.23" };
    const f = normalizeThreatFox(fixture("threatfox", "found"), subject);
    assert.deepEqual(f.entities[0]?.attributes, {
      is_malicious: "true",
      threatfox_confidence: "75",
      threat_types: "botnet_cc",
      tags: "CobaltStrike,c2",
    });
    assert.deepEqual(f.entities[1], {
      superType: "THREAT",
      type: "MALWARE",
      name: "Cobalt Strike",
      attributes: { aliases: "Agentemis,BEACON,CobaltStrike" },
    });
    assert.equal(f.relations[0]?.name, "associated threat");
    assert.deepEqual(
      f.events.map((e) => [e.type, e.firstSeen, e.lastSeen]),
      [["HIT", "2026-10-02T08:15:00.000Z", "2026-11-20T11:00:00.000Z"]],
    );
  });

  it("MalwareBazaar: file facts, other hashes, family, submission and detections", () => {
    const subject = { superType: "OBSERVABLE", type: "MD5", value: "44d88612fea8a8f36de82e1278abb02f" };
    const f = normalizeMalwareBazaar(fixture("malwarebazaar", "found"), subject);
    const attrs = f.entities[0]?.attributes ?? {};
    assert.equal(attrs.signature, "AgentTesla");
    assert.equal(attrs.file_name, "invoice.exe");
    assert.equal(attrs.tags, "AgentTesla,exe");
    assert.deepEqual(
      f.entities.slice(1).map((e) => `${e.superType}/${e.type}:${e.name}`),
      [
        "OBSERVABLE/SHA1:3395856ce81f2b7382dee72602f798b642f14140",
        "OBSERVABLE/SHA256:275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f",
        "THREAT/MALWARE:AgentTesla",
      ],
    );
    assert.deepEqual(
      f.events.map((e) => `${e.type}:${e.name}`),
      ["HIT:Submitted to MalwareBazaar", "AV_DETECTION:ClamAV: Win.Trojan.AgentTesla-9787341-0"],
    );
  });

  it("URLhaus host: the URLs it serves, their status, blacklists", () => {
    const subject = { superType: "OBSERVABLE", type: "DOMAIN", value: "evil.example" };
    const f = normalizeUrlhaus(fixture("urlhaus", "host_found"), subject);
    assert.deepEqual(f.entities[0]?.attributes, {
      is_malicious: "true",
      urlhaus_url_count: "2",
      blacklists: "spamhaus_dbl:abused_legit_malware",
    });
    assert.deepEqual(
      f.entities.slice(1).map((e) => [e.name, e.attributes?.url_status]),
      [
        ["http://evil.example/a.exe", "online"],
        ["http://evil.example/b.sh", "offline"],
      ],
    );
    assert.deepEqual([...new Set(f.relations.map((r) => r.name))], ["hosts"]);
    assert.equal(f.events.length, 3);
  });

  it("URLhaus URL: the payloads it served become files it delivers (malformed hashes skipped)", () => {
    const subject = { superType: "OBSERVABLE", type: "URL", value: "http://evil.example/a.exe" };
    const f = normalizeUrlhaus(fixture("urlhaus", "url_found"), subject);
    const file = f.entities.find((e) => e.type === "SHA256");
    assert.deepEqual(file, {
      superType: "OBSERVABLE",
      type: "SHA256",
      name: "5e8f4b2a9c1d3e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f",
      attributes: {
        md5: "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        file_name: "a.exe",
        file_type: "exe",
        file_size: "734208",
        signature: "AgentTesla",
        vt_result: "41 / 72",
      },
    });
    assert.equal(f.entities.filter((e) => e.type === "SHA256").length, 1);
    assert.deepEqual(
      f.relations.map((r) => `${r.from.type} ${r.name} ${r.to.type}:${r.to.name}`),
      [
        "URL delivers SHA256:5e8f4b2a9c1d3e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f",
        "SHA256 associated threat MALWARE:AgentTesla",
      ],
    );
    const payloadEvent = f.events.find(
      (e) => e.involved.name === "5e8f4b2a9c1d3e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f",
    );
    assert.equal(payloadEvent?.firstSeen, "2026-10-10T00:00:00.000Z");
  });

  it("URLhaus payload: a hash's facts, family and the URLs that delivered it", () => {
    const subject = { superType: "OBSERVABLE", type: "MD5", value: "0a1b2c3d4e5f60718293a4b5c6d7e8f9" };
    const f = normalizeUrlhaus(fixture("urlhaus", "payload_found"), subject);
    assert.equal(
      f.entities[0]?.attributes?.sha256,
      "5e8f4b2a9c1d3e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f",
    );
    assert.equal(f.entities[0]?.attributes?.signature, "AgentTesla");
    assert.equal(f.entities[0]?.attributes?.urlhaus_url_count, "2");
    assert.deepEqual(
      f.relations.map((r) => `${r.from.name} ${r.name} ${r.to.name}`),
      [
        "0a1b2c3d4e5f60718293a4b5c6d7e8f9 associated threat AgentTesla",
        "http://evil.example/a.exe delivers 0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        "http://other.example/dl/invoice.exe delivers 0a1b2c3d4e5f60718293a4b5c6d7e8f9",
      ],
    );
    assert.deepEqual(
      f.events.map((e) => [e.firstSeen, e.lastSeen]),
      [["2026-10-10T10:12:00.000Z", "2026-10-14T08:00:00.000Z"]],
    );
  });
});

describe("abuse.ch connectors: fetch", () => {
  let fake: SimpleFake;
  before(async () => {
    fake = await startFakeVendor({
      "/api/v1/": (body) => {
        if (body.includes("taginfo")) {
          return {
            body: body.includes("Example Group")
              ? fixture("threatfox", "taginfo")
              : fixture("threatfox", "taginfo_unknown"),
          };
        }
        if (body.includes("search_ioc")) {
          return {
            body: body.includes("198.51.100.23")
              ? fixture("threatfox", "found")
              : fixture("threatfox", "not_found"),
          };
        }
        return {
          body: body.includes("44d88612")
            ? fixture("malwarebazaar", "found")
            : fixture("malwarebazaar", "not_found"),
        };
      },
      "/v1/payload/": (body) => ({
        body:
          body.includes("0a1b2c3d4e5f60718293a4b5c6d7e8f9") ||
          body.includes("5e8f4b2a9c1d3e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f")
            ? fixture("urlhaus", "payload_found")
            : fixture("urlhaus", "payload_not_found"),
      }),
      "/v1/host/": (body) => ({
        body: body.includes("evil.example")
          ? fixture("urlhaus", "host_found")
          : fixture("urlhaus", "not_found"),
      }),
    });
  });
  after(() => fake.close());
  const ctx = () => vendorContext(fake.url);

  it("ThreatFox: a threat actor is asked with taginfo; an unknown tag is not known", async () => {
    const actor = (value: string) => ({ superType: "ACTOR", type: "THREAT_ACTOR", value });
    assert.ok(await threatfox.fetch(actor("Example Group"), KEY, ctx()));
    assert.deepEqual(JSON.parse(fake.calls.at(-1)!.body), {
      query: "taginfo",
      tag: "Example Group",
      limit: 100,
    });
    assert.equal(await threatfox.fetch(actor("Nobody"), KEY, ctx()), null);
  });

  it("ThreatFox: POSTs search_ioc as JSON with the Auth-Key header; no_result is null", async () => {
    const found = await threatfox.fetch(
      { superType: "OBSERVABLE", type: "IPV4", value: "198.51.100.23" },
      KEY,
      ctx(),
    );
    assert.ok(found);
    const call = fake.calls.at(-1)!;
    assert.equal(call.method, "POST");
    assert.equal(call.headers["auth-key"], KEY.api_key);
    assert.deepEqual(JSON.parse(call.body), {
      query: "search_ioc",
      search_term: "198.51.100.23",
      exact_match: true,
    });
    assert.equal(
      await threatfox.fetch({ superType: "OBSERVABLE", type: "IPV4", value: "192.0.2.99" }, KEY, ctx()),
      null,
    );
  });

  it("MalwareBazaar: POSTs get_info as a form; hash_not_found is null", async () => {
    assert.ok(
      await malwarebazaar.fetch(
        { superType: "OBSERVABLE", type: "MD5", value: "44D88612FEA8A8F36DE82E1278ABB02F" },
        KEY,
        ctx(),
      ),
    );
    assert.equal(fake.calls.at(-1)?.body, "query=get_info&hash=44d88612fea8a8f36de82e1278abb02f");
    assert.equal(
      await malwarebazaar.fetch({ superType: "OBSERVABLE", type: "MD5", value: "0".repeat(32) }, KEY, ctx()),
      null,
    );
  });

  it("URLhaus: hosts go to /v1/host/; no_results is null", async () => {
    assert.ok(
      await urlhaus.fetch({ superType: "OBSERVABLE", type: "DOMAIN", value: "evil.example" }, KEY, ctx()),
    );
    assert.equal(fake.calls.at(-1)?.body, "host=evil.example");
    assert.equal(
      await urlhaus.fetch({ superType: "OBSERVABLE", type: "DOMAIN", value: "good.example" }, KEY, ctx()),
      null,
    );
  });

  it("URLhaus: MD5 and SHA-256 go to /v1/payload/ as their form fields; no_results is null", async () => {
    const ask = (type: string, value: string) =>
      urlhaus.fetch({ superType: "OBSERVABLE", type, value }, KEY, ctx());
    assert.ok(await ask("MD5", "0a1b2c3d4e5f60718293a4b5c6d7e8f9".toUpperCase()));
    assert.equal(fake.calls.at(-1)?.body, "md5_hash=0a1b2c3d4e5f60718293a4b5c6d7e8f9");
    assert.ok(await ask("SHA256", "5e8f4b2a9c1d3e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f"));
    assert.equal(
      fake.calls.at(-1)?.body,
      "sha256_hash=5e8f4b2a9c1d3e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f",
    );
    assert.equal(await ask("SHA256", "0".repeat(64)), null);
  });

  it("reports a refused key as invalid credentials", async () => {
    const refusing = await startFakeVendor({ "/api/v1/": { body: fixture("threatfox", "auth_error") } });
    try {
      const signal = AbortSignal.timeout(5000);
      const http = createVendorHttp({
        baseUrl: refusing.url,
        timeoutMs: 2000,
        retries: 0,
        maxBackoffMs: 0,
        signal,
      });
      await assert.rejects(
        threatfox.fetch({ superType: "OBSERVABLE", type: "IPV4", value: "1.2.3.4" }, KEY, { http, signal }),
        (err: unknown) => err instanceof VendorError && err.code === "invalid_credentials",
      );
    } finally {
      await refusing.close();
    }
  });
});
