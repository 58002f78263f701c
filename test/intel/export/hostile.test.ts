/**
 * Vendor-supplied names in exports: whatever a vendor calls a malware, an actor or a technique,
 * and whatever it passes off as a domain, an address or a URL, each export stays valid for its
 * format (checked by the same validators as the rich graph) — quotes in STIX patterns and MISP
 * tags, control characters, huge names, values that are not of their type.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { toColanderFeed } from "../../../src/intel/domain/export/colander.ts";
import { toMispEvent } from "../../../src/intel/domain/export/misp.ts";
import { toStixBundle } from "../../../src/intel/domain/export/stix.ts";
import { colanderProblems } from "../../helpers/colander-validator.ts";
import { type RICH, richDocument } from "../../helpers/export-graph.ts";
import { mispProblems } from "../../helpers/misp-validator.ts";
import { stixProblems } from "../../helpers/stix-validator.ts";

const ctx = { vendorNames: {} };

/** Names with what breaks quoting: quotes, backslashes, brackets, newlines, NUL, right-to-left marks. */
const nasty = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.constantFrom(
    "'",
    '"',
    "\\",
    "']",
    '"]',
    "\\'",
    "\u0000",
    "\n",
    "\u202e",
    "a".repeat(5000),
    "]] OR [x",
    "%s%n",
    "☃.example",
  ),
);

function problems(values: Partial<typeof RICH>, description: string): string[] {
  const doc = richDocument(values, description);
  return [
    ...stixProblems(toStixBundle(doc, ctx)).map((p) => `stix: ${p}`),
    ...mispProblems(toMispEvent(doc, ctx)).map((p) => `misp: ${p}`),
    ...colanderProblems(toColanderFeed(doc, ctx)).map((p) => `colander: ${p}`),
  ];
}

describe("exports of hostile names", () => {
  it("stay valid STIX, MISP and Colander whatever vendors name things", () => {
    fc.assert(
      fc.property(
        fc.record({
          malware: nasty,
          actor: nasty,
          technique: nasty,
          domain: nasty,
          ip: nasty,
          url: nasty,
          cve: nasty,
        }),
        nasty,
        (values, description) => {
          assert.deepEqual(problems(values, description), []);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("leave out observables whose value is not of their type, with their relations", () => {
    const doc = richDocument({ domain: "not a domain", ip: "999.1.1.1" });
    const bundle = toStixBundle(doc, ctx);
    assert.ok(!bundle.objects.some((o) => o.type === "domain-name" || o.type === "ipv4-addr"));
    assert.ok(!bundle.objects.some((o) => o.relationship_type === "resolves-to"));
    const misp = toMispEvent(doc, ctx).Event;
    assert.ok(!misp.Object.some((o) => o.name === "domain-ip"));
    const feed = toColanderFeed(doc, ctx);
    assert.ok(!Object.values(feed.entities).some((e) => e.name === "not a domain"));
  });
});
