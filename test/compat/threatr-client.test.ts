/**
 * Colander's Threatr client against a real Loupe intel server (SQLite: the client sees only HTTP,
 * and the request protocol is proved on both databases in test/intel/protocol.test.ts): the requests
 * its code sends, replayed as sent (python-requests headers, `Token` key, `json=` bodies, the
 * investigate page's poll: force once, then the same query unforced), and every answer checked
 * against Threatr's shapes as Colander reads them (test/compat/schemas/threatr.schema.json).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { fixture } from "../helpers/connectors.ts";
import { describeOnDatabase } from "../helpers/databases.ts";
import { type SimpleFake, startFakeVendor } from "../helpers/fake-vendor.ts";
import { startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import type { TestIntelServer } from "../helpers/intel-server.ts";
import type { Json } from "../helpers/json.ts";
import {
  assertThreatrShape,
  ColanderThreatrClient,
  humanizeDuration,
  investigateFormError,
  investigateOrdering,
  renderStatusPage,
} from "./threatr-colander.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const IP = "198.51.100.23";

/** Every type Threatr's modules looked up (threatr/modules/*: supported_types). */
const THREATR_TYPES: Record<string, string[]> = {
  OBSERVABLE: [
    "IPV4",
    "IPV6",
    "DOMAIN",
    "HOSTNAME",
    "URL",
    "MD5",
    "SHA1",
    "SHA256",
    "EMAIL",
    "CVE",
    "SERVICE",
    "DNS_RECORD",
  ],
  DEVICE: ["SERVER"],
  ACTOR: ["THREAT_ACTOR"],
};

/** Vendors on loopback answering their real paths with recorded-format bodies. */
async function startVendors() {
  const vt = await startFakeVirusTotal({
    [`files/${MD5}`]: vtFixture("file"),
    "domains/example.org": vtFixture("domain"),
  });
  const shodan = await startFakeVendor({
    [`/shodan/host/${IP}?key=k`]: { body: fixture("shodan", "host") },
    "/dns/domain/example.org?key=k": { body: fixture("shodan", "domain") },
  });
  const otx = await startFakeVendor({
    "/api/v1/search/pulses?q=Example+Group&limit=20": { body: fixture("otx", "search_pulses") },
  });
  const abusech = await startFakeVendor({
    "/api/v1/": (body) => ({
      body: body.includes("taginfo") ? fixture("threatfox", "taginfo") : fixture("threatfox", "not_found"),
    }),
    "/v1/url/": { body: fixture("urlhaus", "url_found") },
    "/v1/host/": { body: fixture("urlhaus", "host_found") },
    "/v1/payload/": { body: fixture("urlhaus", "payload_not_found") },
  });
  const misp = await startFakeVendor({
    "/attributes/restSearch": (body) => ({
      body: fixture("misp", body.includes("Example Group") ? "actor" : "empty"),
    }),
  });
  return {
    vt,
    shodan,
    otx,
    abusech,
    misp,
    close: () => Promise.all([vt, shodan, otx, abusech, misp].map((v) => v.close())),
  };
}

/** investigate_search_view's loop: the first query as the form sends it, then the page re-submits unforced. */
async function investigate(colander: ColanderThreatrClient, query: Json): Promise<Json> {
  const first = await colander.sendRequest({ ...query, force: true });
  if (first.status !== 200)
    assert.equal(first.status, 201, `${JSON.stringify(query)} answered ${first.status}`);
  for (let i = 0; i < 400; i++) {
    const again = await colander.sendRequest({ ...query, force: false });
    if (!again.wait) {
      assert.equal(again.status, 200, JSON.stringify(query));
      return again.results;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no result for ${JSON.stringify(query)}`);
}

describeOnDatabase("sqlite", "Colander's Threatr client against Loupe intel on sqlite", {}, (db) => {
  let vendors: Awaited<ReturnType<typeof startVendors>>;
  let hashlookup: SimpleFake;
  let server: TestIntelServer;
  let colander: ColanderThreatrClient;
  before(async () => {
    vendors = await startVendors();
    hashlookup = await startFakeVendor({});
    server = await db.startIntelServer({
      env: {
        INTEL_CONNECTORS: "virustotal,hashlookup,shodan,otx,threatfox,urlhaus,misp,greynoise",
        INTEL_VENDOR_URL_VIRUSTOTAL: vendors.vt.url,
        INTEL_VENDOR_URL_HASHLOOKUP: hashlookup.url,
        INTEL_VENDOR_URL_SHODAN: vendors.shodan.url,
        INTEL_VENDOR_URL_OTX: vendors.otx.url,
        INTEL_VENDOR_URL_THREATFOX: vendors.abusech.url,
        INTEL_VENDOR_URL_URLHAUS: vendors.abusech.url,
        INTEL_VENDOR_RETRIES: "0",
      },
    });
    const store = server.services.store.db;
    await addCredentials(store, "virustotal", { api_key: VT_KEY });
    await addCredentials(store, "virustotal", { api_key: `${VT_KEY}-2` });
    for (const vendor of ["shodan", "otx", "threatfox", "urlhaus"])
      await addCredentials(store, vendor, { api_key: "k" });
    await addCredentials(store, "misp", { api_key: "k", url: vendors.misp.url });
    colander = new ColanderThreatrClient(server.url, server.key);
  });
  after(async () => {
    await vendors.close();
    await hashlookup.close();
  });

  it("is correctly configured: HEAD /api/schema/ with its token answers 200", async () => {
    assert.equal(await colander.isCorrectlyConfigured(), true);
    assert.equal(await new ColanderThreatrClient(server.url, "0".repeat(40)).isCorrectlyConfigured(), false);
  });

  it("status page: /api/status/now/ has Threatr's shape and renders (uptime through humanize_duration)", async () => {
    const status = await colander.getStatus();
    assertThreatrShape("status", status);
    const modules = Object.fromEntries(
      status.available_modules.map((m: { id: string; configured: number }) => [m.id, m.configured]),
    );
    // Every connector, configured or not; `configured` counts credential sets (a keyless one is ready: 1).
    assert.deepEqual(modules, {
      virustotal: 2,
      hashlookup: 1,
      urlhaus: 1,
      threatfox: 1,
      greynoise: 0,
      shodan: 1,
      otx: 1,
      misp: 1,
    });
    assert.ok(status.workers.length >= 1);
    const page = renderStatusPage(status).join("\n");
    assert.match(page, /^on VirusTotal virustotal 2 API keys configured$/m);
    assert.match(page, /^off .* greynoise 0 API keys configured$/m);
    assert.match(page, /^green \S+ (Idle|Working) \d{2}:\d{2}:\d{2} \d+ \d+$/m);
  });

  it("/api/modules/ lists the same objects", async () => {
    const { status, body } = await colander.get("/api/modules/");
    assert.equal(status, 200);
    assertThreatrShape("modules", body);
    assert.deepEqual(body, (await colander.getStatus()).available_modules);
  });

  it("/api/types/ (and /api/types, as get_threatr_types asks) lists Threatr's super types with sub_types", async () => {
    for (const pathname of ["/api/types/", "/api/types"]) {
      const { status, body } = await colander.get(pathname);
      assert.equal(status, 200, pathname);
      assertThreatrShape("types", body);
      const observable = body.find((t: { short_name: string }) => t.short_name === "OBSERVABLE");
      assert.ok(
        observable.sub_types.some(
          (t: { short_name: string; name: string }) => t.short_name === "IPV4" && t.name === "IPv4",
        ),
      );
    }
    const all = await colander.get("/api/types/all/");
    assert.ok(all.body.types.OBSERVABLE.some((t: { id: string }) => t.id === "IPV4"));
  });

  it("/api/types/supported/ names types by the taxonomy, covers every type Threatr looked up, and fills the form", async () => {
    const { body: supported } = await colander.get("/api/types/supported/");
    assertThreatrShape("supportedTypes", supported);
    assert.deepEqual(
      supported.types.OBSERVABLE.find((t: { id: string }) => t.id === "DOMAIN"),
      { id: "DOMAIN", name: "Domain name", label: "Domain name" },
    );
    for (const [superType, types] of Object.entries(THREATR_TYPES))
      for (const type of types)
        assert.equal(investigateFormError(supported, superType, type), null, `${superType}/${type}`);
  });

  it("a DNS record (what a domain's Pivot sends) is looked up: the record, its name, what it points to", async () => {
    const { body: supported } = await colander.get("/api/types/supported/");
    const domain = await investigate(colander, {
      super_type: "OBSERVABLE",
      type: "DOMAIN",
      value: "example.org",
    });
    assertThreatrShape("result", domain);
    const pivot = investigateOrdering(domain).pivots.find(
      (p) => p.type === "DNS_RECORD" && p.value.startsWith("A "),
    );
    assert.ok(pivot, "the domain lists an A record");
    assert.equal(investigateFormError(supported, pivot.super_type, pivot.type), null);
    const record = await investigate(colander, pivot);
    assertThreatrShape("result", record);
    assert.equal(record.root_entity.name, "A example.org 192.0.2.10");
    assert.equal(record.root_entity.attributes.ttl, "300");
    const names = record.relations.map((r: Json) => r.name).sort();
    assert.deepEqual(names, ["has DNS record", "points to"]);
  });

  it("a service and a server are looked up through Shodan, and every Pivot they offer is a valid form", async () => {
    const { body: supported } = await colander.get("/api/types/supported/");
    const service = await investigate(colander, {
      super_type: "OBSERVABLE",
      type: "SERVICE",
      value: `${IP}:22`,
    });
    assertThreatrShape("result", service);
    assert.equal(service.root_entity.attributes.product, "OpenSSH");
    assert.ok(service.entities.some((e: Json) => e.type.short_name === "CVE"));
    assert.ok(service.events.length >= 1);
    const server = await investigate(colander, { super_type: "DEVICE", type: "SERVER", value: IP });
    assertThreatrShape("result", server);
    assert.equal(server.root_entity.super_type.short_name, "DEVICE");
    for (const doc of [service, server])
      for (const p of investigateOrdering(doc).pivots)
        if (p.super_type !== "THREAT" && p.type !== "ASN")
          assert.equal(
            investigateFormError(supported, p.super_type, p.type),
            null,
            `${p.super_type}/${p.type}`,
          );
  });

  it("a threat actor is looked up through OTX, ThreatFox and MISP", async () => {
    const actor = await investigate(colander, {
      super_type: "ACTOR",
      type: "THREAT_ACTOR",
      value: "Example Group",
    });
    assertThreatrShape("result", actor);
    const a = actor.root_entity.attributes;
    assert.equal(a.source_vendor, "misp,otx,threatfox");
    assert.equal(a.otx_pulse_count, "2");
    const ordering = investigateOrdering(actor);
    assert.ok(ordering.externalDoc >= 2, "pulses and MISP events are reports");
    assert.ok(ordering.types.THREAT?.count, "malware it uses");
    assert.ok(ordering.types.OBSERVABLE?.entities.some((e) => e.type.short_name === "SERVICE"));
  });

  it("events are the root's only; neighbours' events are in neighbour_events", async () => {
    for (const query of [
      { super_type: "OBSERVABLE", type: "DOMAIN", value: "evil.example" },
      { super_type: "OBSERVABLE", type: "URL", value: "http://evil.example/a.exe" },
    ]) {
      const doc = await investigate(colander, query);
      assertThreatrShape("result", doc);
      assert.ok(doc.events.length >= 1, JSON.stringify(query));
      for (const e of doc.events) assert.equal(e.involved_entity, doc.root_entity.id);
      assert.ok(doc.neighbour_events.length >= 1, JSON.stringify(query));
      const neighbours = new Set(doc.entities.map((e: Json) => e.id));
      for (const e of doc.neighbour_events) assert.ok(neighbours.has(e.involved_entity));
    }
  });

  it("a URL's URLhaus payloads are files the URL delivers", async () => {
    const doc = await investigate(colander, {
      super_type: "OBSERVABLE",
      type: "URL",
      value: "http://evil.example/a.exe",
    });
    const file = doc.entities.find((e: Json) => e.type.short_name === "SHA256");
    assert.equal(file?.attributes.signature, "AgentTesla");
    assert.ok(
      doc.relations.some(
        (r: Json) => r.name === "delivers" && r.obj_from === doc.root_entity.id && r.obj_to === file.id,
      ),
    );
  });

  it("the 201 body has Threatr's RequestSerializer shape; the Mermaid graph names nodes by entity id", async () => {
    const res = await fetch(`${server.url}/api/request/`, {
      method: "POST",
      headers: { authorization: `Token ${server.key}`, "content-type": "application/json" },
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value: MD5, force: true }),
    });
    assert.equal(res.status, 201);
    const pending: Json = await res.json();
    assertThreatrShape("request", pending);
    assert.deepEqual(pending.type, {
      name: "MD5",
      short_name: "MD5",
      description: "MD5",
      nf_icon: pending.type.nf_icon,
    });
    const doc = await investigate(colander, { super_type: "OBSERVABLE", type: "MD5", value: MD5 });
    const lines = doc.graph
      .split("\n")
      .slice(1)
      .map((l: string) => l.trim());
    const nodeIds = lines
      .filter((l: string) => /\("/.test(l) && !l.includes("-->"))
      .map((l: string) => l.split("(")[0]);
    const ids = [doc.root_entity.id, ...doc.entities.map((e: Json) => e.id)];
    assert.deepEqual([...nodeIds].sort(), [...ids].sort());
    for (const r of doc.relations)
      assert.ok(
        lines.some((l: string) => l.startsWith(`${r.obj_from} -->|`) && l.endsWith(` ${r.obj_to}`)),
        r.name,
      );
  });

  it("after requests, the status page still renders and the workers count the requests they finished", async () => {
    const status = await colander.getStatus();
    assertThreatrShape("status", status);
    renderStatusPage(status);
    const finished = status.workers.reduce(
      (n: number, w: { available_results: number }) => n + w.available_results,
      0,
    );
    assert.ok(finished >= 5, `finished ${finished}`);
    assert.ok(status.cached_entities > 10 && status.cached_relations > 10 && status.cached_events > 3);
  });
});

describe("humanize_duration replica", () => {
  it("formats like Colander's filter and fails where it fails", () => {
    assert.equal(humanizeDuration(5.7), "00:00:05");
    assert.equal(humanizeDuration(3725), "01:02:05");
    assert.equal(humanizeDuration(90061), "1 day, 1:01:01");
    assert.throws(() => humanizeDuration("12.5 s"));
    assert.throws(() => humanizeDuration(null));
  });
});
