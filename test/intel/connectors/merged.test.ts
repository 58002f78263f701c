/** All connectors at once against their fakes: one merged result document, on SQLite and PostgreSQL. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, it } from "node:test";
import { CONNECTORS } from "../../../src/intel/connectors/registry.ts";
import { addCredentials } from "../../../src/intel/store/credentials.ts";
import { fixture, fixturePath } from "../../helpers/connectors.ts";
import { describeOnEachDatabase } from "../../helpers/databases.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import { pollUntilDone, type TestIntelServer } from "../../helpers/intel-server.ts";
import { json } from "../../helpers/json.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const VT_SHA1 = "3395856ce81f2b7382dee72602f798b642f14140";
const IP = "198.51.100.23";

/** The registry's connectors that ask a vendor this test fakes. */
const FAKED = CONNECTORS.map((c) => c.id).filter(
  (id) => !["iplocation", "mvt", "blocklists", "rdap", "crtsh"].includes(id),
);

describeOnEachDatabase("merged result from every connector", (db) => {
  let vt: FakeVendor;
  let circl: SimpleFake;
  let abusech: SimpleFake;
  let others: SimpleFake;
  let server: TestIntelServer;
  before(async () => {
    vt = await startFakeVirusTotal({
      [`files/${MD5}`]: vtFixture("file"),
      [`ip_addresses/${IP}`]: vtFixture("ip"),
    });
    const found = JSON.parse(readFileSync(fixturePath("hashlookup", "found"), "utf8"));
    // The same file as VirusTotal knows, so both vendors speak of the same SHA-1.
    circl = await startFakeVendor({
      [`/lookup/md5/${MD5}`]: {
        body: { ...found, MD5: MD5.toUpperCase(), "SHA-1": VT_SHA1.toUpperCase(), parents: [] },
      },
    });
    const bazaar = JSON.parse(readFileSync(fixturePath("malwarebazaar", "found"), "utf8"));
    const noIoc = JSON.parse(readFileSync(fixturePath("threatfox", "not_found"), "utf8"));
    const ioc = fixture("threatfox", "found");
    abusech = await startFakeVendor({
      "/api/v1/": (body) => ({
        body: body.includes("search_ioc") ? (body.includes(IP) ? ioc : noIoc) : bazaar,
      }),
      "/v1/host/": { body: fixture("urlhaus", "not_found") },
      "/v1/payload/": { body: fixture("urlhaus", "payload_not_found") },
    });
    // Every other vendor, each on its own real paths, behind one loopback server.
    others = await startFakeVendor({
      [`/api/v2/check?ipAddress=${IP}&maxAgeInDays=90&verbose=`]: { body: fixture("abuseipdb", "found") },
      [`/v3/community/${IP}`]: { body: fixture("greynoise", "found") },
      [`/shodan/host/${IP}?key=k`]: { body: fixture("shodan", "host") },
      [`/api/v1/indicators/IPv4/${IP}/general`]: { body: fixture("otx", "general") },
      [`/api/v1/indicators/IPv4/${IP}/passive_dns`]: { body: fixture("otx", "passive_dns") },
      [`/api/v1/search/?q=ip%3A%22${IP}%22&size=50`]: { body: fixture("urlscan", "search") },
      "/attributes/restSearch": (body) => ({
        body: body.includes(IP) ? fixture("misp", "found") : fixture("misp", "empty"),
      }),
    });
    server = await db.startIntelServer({
      env: {
        // The vendors this test fakes (the local ones, RDAP and crt.sh have their own tests).
        INTEL_CONNECTORS: FAKED.join(","),
        INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
        INTEL_VENDOR_URL_HASHLOOKUP: circl.url,
        INTEL_VENDOR_URL_MALWAREBAZAAR: abusech.url,
        INTEL_VENDOR_URL_THREATFOX: abusech.url,
        INTEL_VENDOR_URL_URLHAUS: abusech.url,
        INTEL_VENDOR_URL_ABUSEIPDB: others.url,
        INTEL_VENDOR_URL_GREYNOISE: others.url,
        INTEL_VENDOR_URL_SHODAN: others.url,
        INTEL_VENDOR_URL_OTX: others.url,
        INTEL_VENDOR_URL_URLSCAN: others.url,
      },
    });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
    await addCredentials(server.services.store.db, "malwarebazaar", { api_key: "abuse-key" });
    await addCredentials(server.services.store.db, "threatfox", { api_key: "abuse-key" });
    for (const vendor of ["urlhaus", "abuseipdb", "greynoise", "shodan", "otx", "urlscan"]) {
      await addCredentials(server.services.store.db, vendor, { api_key: "k" });
    }
    await addCredentials(server.services.store.db, "misp", { api_key: "k", url: others.url });
  });
  after(async () => {
    await vt.close();
    await circl.close();
    await abusech.close();
    await others.close();
  });

  it("merges what every vendor said into one graph, one entity per subject", async () => {
    const subject = { super_type: "OBSERVABLE", type: "MD5", value: MD5 };
    const first = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ ...subject, force: true }),
    });
    assert.equal(first.status, 201);
    const res = await pollUntilDone(server, subject);
    assert.equal(res.status, 200);
    const doc = await json(res);
    assert.deepEqual(Object.keys(doc.sources).sort(), [
      "hashlookup",
      "malwarebazaar",
      "misp",
      "otx",
      "threatfox",
      "urlhaus",
      "virustotal",
    ]);
    assert.equal(doc.sources.urlhaus.status, "not_found", JSON.stringify(doc.sources));
    assert.equal(doc.sources.hashlookup.status, "ok", JSON.stringify(doc.sources));
    assert.equal(doc.sources.malwarebazaar.status, "ok", JSON.stringify(doc.sources));
    assert.equal(doc.sources.threatfox.status, "not_found");
    assert.equal(doc.root_entity.attributes.source_vendor, "hashlookup,malwarebazaar,virustotal");
    assert.equal(doc.root_entity.attributes.signature, "AgentTesla");
    assert.equal(doc.root_entity.attributes.vt_score, "61/76");
    assert.equal(doc.root_entity.attributes.known_file, "true");
    const sha1s = doc.entities.filter((e: { type: { short_name: string } }) => e.type.short_name === "SHA1");
    assert.equal(sha1s.length, 1, "the SHA-1 three vendors returned is one entity");
    assert.equal(sha1s[0].attributes.source_vendor, "hashlookup,malwarebazaar,virustotal");
    const modules = await json(await server.api("/api/modules/"));
    assert.deepEqual(
      modules.map((m: { id: string; configured: number }) => `${m.id}:${m.configured}`).sort(),
      // Every connector enabled, each configured (the keyless ones need none).
      FAKED.map((id) => `${id}:1`).sort(),
    );
    const supported = await json(await server.api("/api/types/supported/"));
    assert.ok(supported.types.OBSERVABLE.some((t: { id: string }) => t.id === "SHA256"));
  });

  it("asks all nine IP vendors at once and merges their answers about the same IP", async () => {
    const subject = { super_type: "OBSERVABLE", type: "IPV4", value: IP };
    const first = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ ...subject, force: true }),
    });
    assert.equal(first.status, 201);
    const doc = await json(await pollUntilDone(server, subject));
    const statuses = Object.fromEntries(
      Object.entries(doc.sources).map(([k, v]) => [k, (v as { status: string }).status]),
    );
    assert.deepEqual(statuses, {
      abuseipdb: "ok",
      greynoise: "ok",
      misp: "ok",
      otx: "ok",
      shodan: "ok",
      threatfox: "ok",
      urlhaus: "not_found",
      urlscan: "ok",
      virustotal: "ok",
    });
    const root = doc.root_entity.attributes;
    assert.equal(root.source_vendor, "abuseipdb,greynoise,misp,otx,shodan,threatfox,urlscan,virustotal");
    assert.equal(root.country, "NL");
    assert.equal(root.abuse_confidence_score, "87");
    assert.equal(root.greynoise_classification, "malicious");
    assert.equal(root.open_ports, "22,443");
    const host = doc.entities.filter((e: { name: string }) => e.name === "vps23.example-hosting.nl");
    assert.equal(host.length, 1, "the hostname AbuseIPDB and Shodan both returned is one entity");
    assert.equal(host[0].attributes.source_vendor, "abuseipdb,shodan");
    const asn = doc.entities.filter((e: { name: string }) => e.name === "AS64500");
    assert.equal(asn.length, 1);
    assert.ok(doc.entities.some((e: { type: { short_name: string } }) => e.type.short_name === "CVE"));
    assert.ok(
      doc.entities.some((e: { super_type: { short_name: string } }) => e.super_type.short_name === "EXT_DOC"),
    );
    assert.ok(doc.events.length >= 6);
  });
});
