/**
 * crt.sh: its JSON list (wrapped by fetch) normalised exactly — counts, issuers, sibling names,
 * one HIT per certificate — and fetch against a fake answering crt.sh's query in its format.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { crtsh } from "../../../src/intel/connectors/crtsh/index.ts";
import { normalizeCrtsh } from "../../../src/intel/connectors/crtsh/normalize.ts";
import { fixture, vendorContext } from "../../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";

const domain = { superType: "OBSERVABLE", type: "DOMAIN", value: "example.org" };

describe("crtsh connector", () => {
  it("normalizes certificates: counts, dates, issuers, sibling names, one HIT each", () => {
    const f = normalizeCrtsh(fixture("crtsh", "certificates"), domain);
    assert.deepEqual(f.entities[0]?.attributes, {
      cert_count: "2",
      cert_first_issued: "2025-03-10T00:00:00.000Z",
      cert_last_issued: "2026-10-01T07:00:00.000Z",
      cert_issuers: "Let's Encrypt, DigiCert Inc",
      cert_sibling_names: "2",
    });
    assert.deepEqual(
      f.relations.map((r) => `${r.name} ${r.to.type}:${r.to.name}`),
      [
        "shares a certificate with HOSTNAME:mail.example.org",
        "shares a certificate with HOSTNAME:www.example.org",
      ],
    );
    assert.deepEqual(
      f.events.map((e) => [e.name, e.firstSeen, e.lastSeen]),
      [
        [
          "Certificate 04a1b2c3d4e5f60718293a4b5c6d7e8f9a0b issued by Let's Encrypt",
          "2026-10-01T07:00:00.000Z",
          "2026-12-30T07:00:00.000Z",
        ],
        [
          "Certificate 0a1b2c3d4e5f60718293a4b5c6d7e8f9 issued by DigiCert Inc",
          "2025-03-10T00:00:00.000Z",
          "2026-03-10T23:59:59.000Z",
        ],
      ],
    );
    assert.throws(() => normalizeCrtsh({}, domain), /no certificate list/);
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor({
        "/?q=example.org&output=json&deduplicate=Y": { body: fixture("crtsh", "certificates").certificates },
        "/?q=unknown.example&output=json&deduplicate=Y": { body: [] },
      });
    });
    after(() => fake.close());

    it("asks crt.sh's JSON output for the name; an empty list is not known", async () => {
      const raw = await crtsh.fetch({ ...domain, value: "Example.ORG." }, {}, vendorContext(fake.url));
      assert.equal((raw as { certificates: unknown[] }).certificates.length, 2);
      assert.equal(
        await crtsh.fetch({ ...domain, value: "unknown.example" }, {}, vendorContext(fake.url)),
        null,
      );
    });
  });
});
