/**
 * Vendor-supplied names in exports: whatever a vendor calls a malware, an actor or a technique,
 * and whatever it passes off as a domain, an address or a URL, each export format of EXPORT_TABLE
 * stays valid (checked by its validator, test/helpers/export-validators.ts) — quotes in STIX
 * patterns and MISP tags, control characters, huge names, values that are not of their type.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { toColanderFeed } from "../../../src/intel/domain/export/colander.ts";
import { EXPORT_TABLE, exportDocument } from "../../../src/intel/domain/export/index.ts";
import { toMispEvent } from "../../../src/intel/domain/export/misp.ts";
import { toStixBundle } from "../../../src/intel/domain/export/stix.ts";
import { type RICH, richDocument } from "../../helpers/export-graph.ts";
import { exportValidator } from "../../helpers/export-validators.ts";

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

/** What each format's validator finds in its export of the document (every row of EXPORT_TABLE). */
function problems(values: Partial<typeof RICH>, description: string): string[] {
  const doc = richDocument(values, description);
  return EXPORT_TABLE.flatMap(({ name }) =>
    exportValidator(name)(exportDocument(name, doc, ctx).body).map((p) => `${name}: ${p}`),
  );
}

describe("exports of hostile names", () => {
  it("stay valid in every export format whatever vendors name things", () => {
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
