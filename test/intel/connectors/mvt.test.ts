/**
 * MVT indicators: the index (indicators.yaml) and a STIX 2.1 bundle read as MVT reads them (files
 * written for the tests in the real formats), and normalize on the connector's answers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeMvt } from "../../../src/intel/connectors/mvt/normalize.ts";
import { parseMvtBundle, parseMvtIndex, patternValues } from "../../../src/intel/connectors/mvt/stix.ts";
import { fixture } from "../../helpers/connectors.ts";
import { mvtIndex, spywareBundle } from "../../helpers/fake-feeds.ts";

describe("mvt connector", () => {
  it("reads the index: GitHub files under the files' base URL, download URLs as given", () => {
    const collections = parseMvtIndex(mvtIndex("http://mirror.example"), "http://mirror.example/raw/");
    assert.deepEqual(collections, [
      {
        id: "mvt:examplespy.stix2",
        name: "Example Spyware Indicators of Compromise",
        url: "http://mirror.example/raw/example-org/investigations/main/2026-11-01_examplespy/examplespy.stix2",
        sources: ["Amnesty International", "Citizen Lab"],
        references: ["https://example.org/research/examplespy"],
      },
      {
        id: "mvt:second.stix2",
        name: "Second Example Collection",
        url: "http://mirror.example/downloads/second.stix2",
        sources: ["Example Lab"],
        references: [],
      },
    ]);
    assert.throws(() => parseMvtIndex("just: text", "http://x"), /indicators/);
  });

  it("reads a bundle: each indicator typed by the taxonomy and tied to its malware", () => {
    const [collection] = parseMvtIndex(mvtIndex("http://m"), "http://m");
    const entries = parseMvtBundle(spywareBundle(), collection!);
    assert.deepEqual(
      entries.map((e) => `${e.kind} ${e.value}`),
      [
        "DOMAIN spyware-c2.example.org",
        "IPV4 192.0.2.99",
        "EMAIL operator@example.org",
        `SHA256 ${"a".repeat(64)}`,
        "NAMESPACE com.example.spyagent",
        "PROCESS spyagentd",
        "URL https://spyware-c2.example.org/x",
        "IPV6 2001:db8::99",
      ],
    );
    assert.deepEqual(entries[0]?.info, {
      threat: "ExampleSpy",
      collection: "Example Spyware Indicators of Compromise",
      sources: ["Amnesty International", "Citizen Lab"],
      references: ["https://example.org/research/examplespy-c2", "https://example.org/research/examplespy"],
    });
    assert.throws(() => parseMvtBundle('{"type":"not-a-bundle"}', collection!), /bundle/);
    assert.deepEqual(patternValues("[file:hashes.'SHA-256' = 'AB\\'C']"), [
      { kind: "SHA256", value: "ab'c" },
    ]);
  });

  it("normalizes a match: the spyware, its sources, its references, an ALERT", () => {
    const subject = { superType: "OBSERVABLE", type: "DOMAIN", value: "spyware-c2.example.org" };
    const f = normalizeMvt(fixture("mvt", "found"), subject);
    assert.deepEqual(f.entities[0]?.attributes, {
      spyware: "ExampleSpy",
      spyware_sources: "Amnesty International, Citizen Lab",
      spyware_collections: "Example Spyware Indicators of Compromise",
      matched_indicator: "DOMAIN spyware-c2.example.org",
    });
    assert.deepEqual(
      f.entities.slice(1).map((e) => `${e.superType}/${e.type}/${e.name}`),
      ["THREAT/SPYWARE/ExampleSpy", "EXT_DOC/REPORT/https://example.org/research/examplespy"],
    );
    assert.deepEqual(
      f.events.map((e) => e.name),
      ["Listed as ExampleSpy by Amnesty International, Citizen Lab"],
    );
    const odd = normalizeMvt(fixture("mvt", "odd-match"), subject);
    assert.deepEqual([odd.entities.length, odd.relations, odd.events], [1, [], []]);
  });
});
