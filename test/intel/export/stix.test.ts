/** The STIX 2.1 export as a pure function: a rich graph, checked with the OASIS schemas and by meaning. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { toStixBundle } from "../../../src/intel/domain/export/stix.ts";
import { RICH, richDocument } from "../../helpers/export-graph.ts";
import type { Json } from "../../helpers/json.ts";
import { stixProblems } from "../../helpers/stix-validator.ts";

const ctx = { vendorNames: { virustotal: "VirusTotal", otx: "AlienVault OTX" } };
type Obj = { type: string; id: string } & Record<string, Json>;

const bundle = toStixBundle(richDocument(), ctx);
const objects = bundle.objects as Obj[];
const ofType = (type: string) => objects.filter((o) => o.type === type);
const one = (type: string, match: (o: Obj) => boolean) => {
  const found = ofType(type).filter(match);
  assert.equal(found.length, 1, `one ${type} expected, got ${found.length}`);
  return found[0]!;
};
const byId = (id: string) => objects.find((o) => o.id === id)!;

describe("STIX export", () => {
  it("is a bundle the OASIS STIX 2.1 schemas accept, with no dangling reference", () => {
    assert.deepEqual(stixProblems(bundle), []);
    assert.equal(new Set(objects.map((o) => o.id)).size, objects.length);
  });

  it("is checked by a validator that does refuse broken bundles", () => {
    const broken = structuredClone(bundle) as { objects: Obj[] };
    const indicator = broken.objects.find((o) => o.type === "indicator")!;
    delete indicator.pattern;
    broken.objects.find((o) => o.type === "domain-name")!.value = "not a host name!";
    broken.objects.find((o) => o.type === "sighting")!.sighting_of_ref =
      "malware--00000000-0000-4000-8000-000000000000";
    const problems = stixProblems(broken).join("\n");
    assert.match(problems, /indicator--.*pattern/);
    assert.match(problems, /domain-name--.*format/);
    assert.match(problems, /sighting_of_ref points to malware--0{8}/);
  });

  it("is deterministic: the same graph gives the same bundle, ids included", () => {
    assert.deepEqual(toStixBundle(richDocument(), ctx), bundle);
  });

  it("gives SCOs the UUIDv5 ids of STIX 2.1 §2.9 (checked against Python's uuid module)", () => {
    const domain = one("domain-name", (o) => o.value === RICH.domain);
    const python = execFileSync("python3", [
      "-c",
      "import sys,uuid,json; print(uuid.uuid5(uuid.UUID('00abedb4-aa42-466c-9c01-fed23315a9b7'), json.dumps({'value': sys.argv[1]}, separators=(',', ':'), sort_keys=True)))",
      RICH.domain,
    ])
      .toString()
      .trim();
    assert.equal(domain.id, `domain-name--${python}`);
  });

  it("makes one file of the three hashes that name it, its id from the MD5", () => {
    const file = one("file", () => true);
    assert.deepEqual(file.hashes, { MD5: RICH.md5, "SHA-1": RICH.sha1, "SHA-256": RICH.sha256 });
    const again = toStixBundle(richDocument(), ctx).objects.find((o) => o.type === "file");
    assert.equal(again?.id, file.id);
  });

  it("carries observables, malware, threat actor, vulnerability and technique", () => {
    one("ipv4-addr", (o) => o.value === RICH.ip);
    one("url", (o) => o.value === RICH.url);
    const malware = one("malware", (o) => o.name === RICH.malware);
    assert.equal(malware.is_family, true);
    assert.deepEqual(malware.malware_types, ["trojan"]);
    assert.equal(malware.description, "Banking trojan turned loader");
    one("threat-actor", (o) => o.name === RICH.actor);
    const cve = one("vulnerability", (o) => o.name === RICH.cve);
    assert.deepEqual(cve.external_references, [{ source_name: "cve", external_id: RICH.cve }]);
    const technique = one("attack-pattern", () => true);
    assert.equal(technique.external_references[0].external_id, "T1059.001");
    assert.equal(
      ofType("x-phone").length + objects.filter((o) => JSON.stringify(o).includes(RICH.phone)).length,
      0,
    );
  });

  it("makes a report of a document, referring to what it documents", () => {
    const report = one("report", (r) => r.name === RICH.report);
    const documented = report.object_refs.map((id: string) => byId(id).type).sort();
    assert.deepEqual(documented, ["domain-name", "malware"]);
    assert.equal(report.external_references[0].url, "https://otx.alienvault.com/pulse/1");
  });

  it("has an identity for Loupe and one per vendor, and vendors create what only they said", () => {
    const names = ofType("identity")
      .map((o) => o.name)
      .sort();
    assert.deepEqual(names, [
      "AlienVault OTX",
      "Loupe",
      "VirusTotal",
      "malwarebazaar",
      "urlhaus",
      "vulnlookup",
    ]);
    const actor = one("threat-actor", () => true);
    assert.equal(byId(actor.created_by_ref).name, "AlienVault OTX");
  });

  it("turns relations into relationships and ties indicators to what they indicate", () => {
    const rel = (type: string, from: Obj, to: Obj) =>
      one(
        "relationship",
        (r) => r.relationship_type === type && r.source_ref === from.id && r.target_ref === to.id,
      );
    const [file, domain, ip, malware, actor] = [
      one("file", () => true),
      one("domain-name", () => true),
      one("ipv4-addr", () => true),
      one("malware", () => true),
      one("threat-actor", () => true),
    ];
    rel("resolves-to", domain, ip);
    rel("attributed-to", malware, actor);
    rel("related-to", file, malware);
    assert.equal(ofType("relationship").filter((r) => r.relationship_type === "same-file-as").length, 0);
    const indicator = one("indicator", (i) => i.pattern.startsWith("[file:"));
    assert.equal(
      indicator.pattern,
      `[file:hashes.MD5 = '${RICH.md5}' OR file:hashes.'SHA-1' = '${RICH.sha1}' OR file:hashes.'SHA-256' = '${RICH.sha256}']`,
    );
    assert.equal(indicator.pattern_type, "stix");
    rel("indicates", indicator, malware);
    rel("based-on", indicator, file);
  });

  it("escapes quotes and backslashes in patterns", () => {
    const indicator = one("indicator", (i) => i.pattern.startsWith("[url:"));
    assert.equal(indicator.pattern, "[url:value = 'http://evil.example/it\\'s\\\\here']");
  });

  it("makes events observed-data, and sightings of indicators and SDOs, seen by the vendor", () => {
    const detection = one("sighting", (s) => s.description.startsWith("AV_DETECTION"));
    assert.equal(byId(detection.sighting_of_ref).type, "indicator");
    assert.equal(detection.count, 61);
    assert.equal(detection.first_seen, "2026-10-01T00:00:00.000Z");
    assert.deepEqual(
      detection.where_sighted_refs.map((r: string) => byId(r).name),
      ["VirusTotal"],
    );
    const observed = byId(detection.observed_data_refs[0]);
    assert.deepEqual(observed.object_refs, [one("file", () => true).id]);
    assert.equal(observed.number_observed, 61);
    const campaign = one("sighting", (s) => s.description.startsWith("HIT: Emotet"));
    assert.equal(byId(campaign.sighting_of_ref).type, "malware");
    // Passive DNS is an observation, not a sign of harm: observed-data only, count 0 becomes 1.
    const dns = one("observed-data", (o) => o.object_refs[0] === one("domain-name", () => true).id);
    assert.equal(dns.number_observed, 1);
    assert.equal(ofType("sighting").filter((s) => s.description.startsWith("PASSIVE_DNS")).length, 0);
  });

  it("marks each object with the official TLP 2.0 definition of its level and its PAP", () => {
    const name = (o: Obj) => (o.object_marking_refs ?? []).map((r: string) => byId(r).name).sort();
    assert.deepEqual(name(one("domain-name", () => true)), ["PAP:RED", "TLP:RED"]);
    // The file takes the strictest of its hashes (AMBER over GREEN and CLEAR).
    assert.deepEqual(name(one("file", () => true)), ["PAP:GREEN", "TLP:AMBER"]);
    assert.deepEqual(name(one("ipv4-addr", () => true)), ["PAP:CLEAR", "TLP:CLEAR"]);
    // A relationship is as restricted as its more restricted end.
    const resolves = one("relationship", (r) => r.relationship_type === "resolves-to");
    assert.deepEqual(name(resolves), ["PAP:RED", "TLP:RED"]);
    const red = one("marking-definition", (m) => m.name === "TLP:RED");
    assert.equal(red.id, "marking-definition--e828b379-4e03-4974-9ac4-e53a884c97c1");
    assert.equal(red.extensions["extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d"].tlp_2_0, "red");
  });

  it("keeps the exact TLP level of the subject at all five levels (AMBER+STRICT's own definition)", () => {
    const official: Record<string, string> = {
      CLEAR: "marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487",
      GREEN: "marking-definition--bab4a63c-aed9-4cf5-a766-dfca5abac2bb",
      AMBER: "marking-definition--55d920b0-5e8b-4f79-9ee9-91f868d9b421",
      "AMBER+STRICT": "marking-definition--939a9414-2ddd-4d32-a0cd-375ea402b003",
      RED: "marking-definition--e828b379-4e03-4974-9ac4-e53a884c97c1",
    };
    for (const level of Object.keys(official)) {
      const marked = toStixBundle(richDocument({}, "", { tlp: level, pap: level }), ctx);
      assert.deepEqual(stixProblems(marked), [], level);
      const all = marked.objects as Obj[];
      const file = all.find((o) => o.type === "file")!;
      // The file is as restricted as its most restricted hash: the root's level, GREEN at least (its MD5).
      const expected = level === "CLEAR" ? "GREEN" : level;
      const refs = file.object_marking_refs as string[];
      assert.ok(refs.includes(official[expected]!), `${level}: ${refs.join(" ")}`);
      const definition = all.find((o) => o.id === official[expected])!;
      assert.equal(definition.name, `TLP:${expected}`);
      const tlp2 =
        definition.extensions["extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d"].tlp_2_0;
      assert.equal(tlp2, expected.toLowerCase());
      const pap = all.find((o) => refs.includes(o.id) && String(o.name).startsWith("PAP:"))!;
      assert.equal(pap.name, `PAP:${level}`);
    }
  });
});
