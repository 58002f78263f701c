/**
 * CIRCL Vulnerability-Lookup: normalize on a recorded CVE JSON 5 record, and fetch against a fake
 * vendor on loopback speaking its API (an unknown id answers `{}` with HTTP 200).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { VendorError } from "../../../src/intel/connectors/types.ts";
import { vulnlookup } from "../../../src/intel/connectors/vulnlookup/index.ts";
import { normalizeVulnLookup } from "../../../src/intel/connectors/vulnlookup/normalize.ts";
import { fixture as loadFixture, vendorContext } from "../../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";

const fixture = (name: string) => loadFixture("vulnlookup", name);
const subject = { superType: "OBSERVABLE", type: "CVE", value: "CVE-2021-44228" };

describe("vulnlookup connector", () => {
  it("normalizes a CVE record: facts, the best CVSS v3 (an ADP's when the CNA has none), references, KEV", () => {
    const f = normalizeVulnLookup(fixture("found"), subject);
    assert.deepEqual(f.entities[0]?.attributes, {
      title:
        "Apache Log4j2 JNDI features do not protect against attacker controlled LDAP and other JNDI related endpoints",
      state: "PUBLISHED",
      assigner: "apache",
      published: "2021-12-10T00:00:00.000Z",
      updated: "2025-02-04T14:25:34.416Z",
      cwe: "CWE-502,CWE-400,CWE-20",
      cvss_score: "10",
      cvss_severity: "CRITICAL",
      cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
    });
    assert.match(f.entities[0]?.description ?? "", /^Apache Log4j2 2\.0-beta9 through 2\.15\.0/);
    assert.deepEqual(
      f.relations.map((r) => `${r.from.name} ${r.name} ${r.to.name}`),
      [
        "https://logging.apache.org/log4j/2.x/security.html documents CVE-2021-44228",
        "http://www.openwall.com/lists/oss-security/2021/12/10/1 documents CVE-2021-44228",
        "https://www.kb.cert.org/vuls/id/930724 documents CVE-2021-44228",
      ],
    );
    assert.equal(f.entities[3]?.description, "VU#930724");
    assert.deepEqual(
      f.events.map((e) => [e.type, e.firstSeen]),
      [["ALERT", "2021-12-10T00:00:00.000Z"]],
    );
  });

  it("refuses an answer that is no CVE record, as bad_response", () => {
    for (const odd of [{}, { cveMetadata: {} }, null, "text"])
      assert.throws(
        () => normalizeVulnLookup(odd, subject),
        (e) => e instanceof VendorError && e.code === "bad_response",
      );
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor(
        {
          "/api/vulnerability/CVE-2021-44228": { body: fixture("found") },
          "/api/vulnerability/CVE-2099-0001": { status: 200, body: fixture("unknown") },
        },
        fixture("unknown"),
      );
    });
    after(() => fake.close());
    const ctx = () => vendorContext(fake.url);

    it("asks for the id upper-cased, without credentials", async () => {
      const raw = await vulnlookup.fetch({ ...subject, value: " cve-2021-44228 " }, {}, ctx());
      assert.equal((raw as { cveMetadata: { cveId: string } }).cveMetadata.cveId, "CVE-2021-44228");
      assert.equal(fake.calls.at(-1)?.url, "/api/vulnerability/CVE-2021-44228");
      assert.equal(fake.calls.at(-1)?.headers.authorization, undefined);
    });

    it("reads the empty answer of an unknown id as not known (null)", async () => {
      assert.equal(await vulnlookup.fetch({ ...subject, value: "CVE-2099-0001" }, {}, ctx()), null);
      assert.equal(fake.calls.at(-1)?.url, "/api/vulnerability/CVE-2099-0001");
    });

    it("does not ask about a value that is no CVE id", async () => {
      const before = fake.calls.length;
      assert.equal(await vulnlookup.fetch({ ...subject, value: "../../admin" }, {}, ctx()), null);
      assert.equal(fake.calls.length, before);
    });
  });
});
