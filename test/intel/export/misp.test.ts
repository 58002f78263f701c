/** The MISP export as a pure function: a rich graph, checked against the MISP core format and by meaning. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toMispEvent } from "../../../src/intel/domain/export/misp.ts";
import { RICH, richDocument } from "../../helpers/export-graph.ts";
import type { Json } from "../../helpers/json.ts";
import { mispProblems } from "../../helpers/misp-validator.ts";

const ctx = { vendorNames: {} };
const event: Json = toMispEvent(richDocument(), ctx).Event;
const attribute = (value: string): Json => event.Attribute.find((a: Json) => a.value === value);
const object = (name: string): Json => event.Object.find((o: Json) => o.name === name);
const tags = (x: Json) => x.Tag.map((t: Json) => t.name).sort();

describe("MISP export", () => {
  it("follows the MISP core format: schema, category-type pairs and the draft's MUSTs", () => {
    assert.deepEqual(mispProblems({ Event: event }), []);
  });

  it("is checked by a validator that does refuse broken events", () => {
    const broken = structuredClone({ Event: event });
    broken.Event.Attribute[0].category = "Person";
    broken.Event.Object[0].ObjectReference.push({ ...broken.Event.Object[1].ObjectReference[0] });
    broken.Event.Attribute[1].colour = "red";
    const problems = mispProblems(broken).join("\n");
    assert.match(problems, /Person\/.* is not a valid pair/);
    assert.match(problems, /a reference from another object/);
    assert.match(problems, /additionalProperties/);
  });

  it("is deterministic", () => {
    assert.deepEqual(toMispEvent(richDocument(), ctx).Event, event);
  });

  it("makes one file object of the three hashes, flagged for detection", () => {
    const file = object("file");
    assert.equal(file.template_uuid, "688c46fb-5edb-40a3-8273-1af7923e2215");
    const hashes = Object.fromEntries(file.Attribute.map((a: Json) => [a.object_relation, a.value]));
    assert.deepEqual(hashes, { md5: RICH.md5, sha1: RICH.sha1, sha256: RICH.sha256 });
    assert.ok(file.Attribute.every((a: Json) => a.to_ids === true && a.category === "Payload delivery"));
    assert.equal(attribute(RICH.sha256), undefined, "hashes live in the object only");
  });

  it("makes a domain-ip object of the domain and the address it resolves to", () => {
    const domainIp = object("domain-ip");
    const members = domainIp.Attribute.map((a: Json) => `${a.object_relation}:${a.type}:${a.value}`).sort();
    assert.deepEqual(members, [`domain:domain:${RICH.domain}`, `ip:ip-dst:${RICH.ip}`]);
  });

  it("keeps the other observables as attributes with MISP types", () => {
    assert.equal(attribute(RICH.url).type, "url");
    assert.equal(attribute(RICH.cve).type, "vulnerability");
    assert.equal(attribute(RICH.cve).category, "External analysis");
    assert.equal(attribute(RICH.phone).type, "phone-number");
    assert.equal(attribute(RICH.phone).to_ids, false);
  });

  it("references from the file object to the domain-ip object it contacts", () => {
    const [file, domainIp] = [object("file"), object("domain-ip")];
    const contacts = file.ObjectReference.find((r: Json) => r.relationship_type === "contacts");
    assert.equal(contacts.referenced_uuid, domainIp.uuid);
  });

  it("carries TLP and PAP as taxonomy tags, per attribute and on the event", () => {
    assert.deepEqual(tags(event), [
      "PAP:GREEN",
      'loupe:source="malwarebazaar"',
      'loupe:source="otx"',
      'loupe:source="urlhaus"',
      'loupe:source="virustotal"',
      'loupe:source="vulnlookup"',
      'misp-galaxy:malpedia="Emotet"',
      'misp-galaxy:mitre-attack-pattern="PowerShell - T1059.001"',
      'misp-galaxy:threat-actor="MUMMY SPIDER"',
      "tlp:amber",
    ]);
    const domain = object("domain-ip").Attribute.find((a: Json) => a.object_relation === "domain");
    assert.deepEqual(tags(domain), ["PAP:RED", "tlp:red"]);
    assert.deepEqual(tags(attribute(RICH.phone)), ["PAP:CLEAR", "tlp:clear"]);
  });

  it("puts malware, actors and techniques in MISP's galaxies", () => {
    const types = event.Galaxy.map(
      (g: Json) => `${g.type}:${g.GalaxyCluster.map((c: Json) => c.value)}`,
    ).sort();
    assert.deepEqual(types, [
      "malpedia:Emotet",
      "mitre-attack-pattern:PowerShell - T1059.001",
      "threat-actor:MUMMY SPIDER",
    ]);
    const malpedia = event.Galaxy.find((g: Json) => g.type === "malpedia");
    assert.equal(malpedia.uuid, "1d1c9af9-37fa-4deb-a928-f9b0abc7354a");
    assert.equal(malpedia.GalaxyCluster[0].description, "Banking trojan turned loader");
    assert.equal(
      malpedia.GalaxyCluster[0].uuid,
      "d29eb927-d53d-4af2-b6ce-17b3a1b34fe7",
      "MISP's own cluster",
    );
  });

  it("names MISP's cluster for a vendor's spelling or label, and a plain tag for a name MISP has no cluster of", () => {
    const cases: Array<[string, string]> = [
      ["AgentTesla", 'misp-galaxy:malpedia="Agent Tesla"'],
      ["agent_tesla", 'misp-galaxy:malpedia="Agent Tesla"'],
      ["trojan.agenttesla/msil", 'misp-galaxy:malpedia="Agent Tesla"'],
      ["Negasteal", 'misp-galaxy:malpedia="Agent Tesla"'],
      ["NoSuchFamily", 'loupe:malware="NoSuchFamily"'],
      ["trojan.nosuchfamily/msil", 'loupe:malware="trojan.nosuchfamily/msil"'],
    ];
    for (const [name, tag] of cases) {
      const e: Json = toMispEvent(richDocument({ malware: name }), ctx).Event;
      const threatTags = e.Tag.map((t: Json) => t.name).filter(
        (t: string) => !/^(tlp|PAP|loupe:source)/.test(t),
      );
      assert.ok(threatTags.includes(tag), `${name}: ${threatTags.join(" ")}`);
      const malpedia = e.Galaxy.find((g: Json) => g.type === "malpedia");
      if (tag.startsWith("loupe:")) assert.equal(malpedia, undefined, `${name} is in no galaxy`);
      else assert.equal(malpedia.GalaxyCluster[0].value, "Agent Tesla");
      assert.deepEqual(mispProblems({ Event: e }), []);
    }
  });

  it("keeps the exact TLP level (AMBER+STRICT too) and never loosens PAP, at all five levels", () => {
    const papTag: Record<string, string> = { "AMBER+STRICT": "PAP:RED" };
    for (const level of ["CLEAR", "GREEN", "AMBER", "AMBER+STRICT", "RED"]) {
      const e: Json = toMispEvent(richDocument({}, "", { tlp: level, pap: level }), ctx).Event;
      const names = e.Tag.map((t: Json) => t.name);
      assert.ok(names.includes(`tlp:${level.toLowerCase()}`), `${level}: ${names.join(" ")}`);
      assert.ok(names.includes(papTag[level] ?? `PAP:${level}`), `${level}: ${names.join(" ")}`);
      assert.equal(names.filter((n: string) => n.startsWith("tlp:")).length, 1);
      assert.deepEqual(mispProblems({ Event: e }), []);
    }
  });

  it("tags what a threat is tied to with that threat's cluster", () => {
    const file = object("file");
    for (const a of file.Attribute) assert.ok(tags(a).includes('misp-galaxy:malpedia="Emotet"'), a.type);
    assert.ok(!tags(attribute(RICH.phone)).some((t: string) => t.startsWith("misp-galaxy:")));
  });

  it("turns events into sightings with first and last seen", () => {
    const sha256 = object("file").Attribute.find((a: Json) => a.type === "sha256");
    assert.equal(sha256.Sighting.length, 1);
    assert.equal(sha256.Sighting[0].source, "virustotal");
    assert.equal(sha256.Sighting[0].date_sighting, String(Date.parse("2026-10-20T00:00:00Z") / 1000));
    assert.equal(sha256.first_seen, "2026-10-01T00:00:00.000Z");
    assert.equal(attribute(RICH.url).Sighting[0].source, "urlhaus");
  });
});
