/**
 * VirusTotal's normalize on its recorded API v3 objects, without a server: a file (verdicts, other
 * hashes, threat label, detections, submissions), a domain (DNS records) and an IP (ASN).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EntityRef, Fragment } from "../../../src/intel/connectors/types.ts";
import { normalizeVirusTotal } from "../../../src/intel/connectors/virustotal/normalize.ts";
import { fixture } from "../../helpers/connectors.ts";

const obs = (type: string, value: string) => ({ superType: "OBSERVABLE", type, value });
const links = (f: Fragment) => f.relations.map((r) => `${r.from.name} ${r.name} ${r.to.name}`);
const named = (f: Fragment, ref: EntityRef) =>
  f.entities.find((e) => e.superType === ref.superType && e.type === ref.type && e.name === ref.name);

describe("virustotal normalize", () => {
  const SHA256 = "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f";

  it("a file: verdict counts, its other hashes, the suggested threat, detections and submissions", () => {
    const f = normalizeVirusTotal(fixture("virustotal", "file"), obs("SHA256", SHA256));
    assert.deepEqual(f.entities[0], {
      superType: "OBSERVABLE",
      type: "SHA256",
      name: SHA256,
      sourceUrl: `https://www.virustotal.com/gui/file/${SHA256}`,
      attributes: {
        vt_score: "61/76",
        vt_malicious: "61",
        vt_suspicious: "0",
        is_malicious: "true",
        vt_reputation: "-12",
        tags: "text,attachment",
        file_type: "Text",
        size: "68",
        meaningful_name: "eicar.com",
        names: "eicar.com,eicar.txt",
      },
    });
    assert.deepEqual(links(f), [
      `${SHA256} same file as 44d88612fea8a8f36de82e1278abb02f`,
      `${SHA256} same file as 3395856ce81f2b7382dee72602f798b642f14140`,
      `${SHA256} associated threat eicar/test`,
    ]);
    assert.deepEqual(named(f, { superType: "THREAT", type: "TROJAN", name: "eicar/test" })?.attributes, {
      category: "trojan",
    });
    const detections = f.events.filter((e) => e.type === "AV_DETECTION");
    assert.equal(detections.length, 3);
    assert.deepEqual(
      detections.map((e) => e.attributes?.engine),
      detections.map((e) => e.attributes?.engine).sort((a, b) => (a ?? "").localeCompare(b ?? "")),
    );
    const hit = f.events.find((e) => e.type === "HIT");
    assert.equal(hit?.firstSeen, "2006-05-22T12:42:02.000Z");
    assert.equal(hit?.count, 612345);
  });

  it("a domain: each DNS record, the addresses it resolves to, and no verdict when nothing flags it", () => {
    const f = normalizeVirusTotal(fixture("virustotal", "domain"), obs("DOMAIN", "example.org"));
    assert.equal(f.entities[0]?.attributes?.is_malicious, "false");
    assert.equal(f.entities[0]?.attributes?.categories, "information technology");
    assert.deepEqual(links(f), [
      "example.org has DNS record A example.org 192.0.2.10",
      "example.org resolves 192.0.2.10",
      "A example.org 192.0.2.10 points to 192.0.2.10",
      "example.org has DNS record AAAA example.org 2001:db8::10",
      "example.org resolves 2001:db8::10",
      "AAAA example.org 2001:db8::10 points to 2001:db8::10",
      "example.org has DNS record MX example.org mail.example.org",
    ]);
    assert.deepEqual(f.events, []);
  });

  it("a DNS record subject: only the record VirusTotal lists, with its target", () => {
    const f = normalizeVirusTotal(
      fixture("virustotal", "domain"),
      obs("DNS_RECORD", "A example.org 192.0.2.10"),
    );
    assert.deepEqual(links(f), [
      "example.org has DNS record A example.org 192.0.2.10",
      "A example.org 192.0.2.10 points to 192.0.2.10",
    ]);
    const unlisted = normalizeVirusTotal(
      fixture("virustotal", "domain"),
      obs("DNS_RECORD", "A example.org 192.0.2.99"),
    );
    assert.deepEqual(unlisted, { entities: [], relations: [], events: [] });
  });

  it("an IP: network facts and its ASN with the operator", () => {
    const f = normalizeVirusTotal(fixture("virustotal", "ip"), obs("IPV4", "192.0.2.10"));
    assert.equal(f.entities[0]?.attributes?.vt_score, "2/93");
    assert.equal(f.entities[0]?.attributes?.network, "192.0.2.0/24");
    assert.deepEqual(named(f, { superType: "OBSERVABLE", type: "ASN", name: "AS64500" })?.attributes, {
      operator: "Example Hosting",
    });
    assert.deepEqual(links(f), ["192.0.2.10 belongs to AS64500"]);
    assert.deepEqual(
      f.events.map((e) => e.name),
      ["Fortinet: malware", "Sophos: phishing"],
    );
  });

  it("an answer with no object attributes gives the bare subject", () => {
    const f = normalizeVirusTotal(fixture("virustotal", "not_found"), obs("SHA256", SHA256));
    assert.deepEqual(f.relations, []);
    assert.deepEqual(f.events, []);
    assert.deepEqual(f.entities[0]?.attributes, {});
  });
});
