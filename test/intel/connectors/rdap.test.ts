/**
 * RDAP: answers in RFC 9083's format normalised exactly, and fetch through a fake IANA bootstrap
 * (RFC 9224) to the registry it names: the paths asked, an unregistered name read as not known.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { rdap } from "../../../src/intel/connectors/rdap/index.ts";
import { normalizeRdap } from "../../../src/intel/connectors/rdap/normalize.ts";
import { fixture, vendorContext } from "../../helpers/connectors.ts";
import { RDAP_DOMAIN, RDAP_IP, startFakeRdap } from "../../helpers/fake-rdap.ts";
import type { SimpleFake } from "../../helpers/fake-vendor.ts";

const subject = (type: string, value: string) => ({ superType: "OBSERVABLE", type, value });

describe("rdap connector", () => {
  it("normalizes a domain: registrar, public registrant, dates, status, name servers", () => {
    const f = normalizeRdap(fixture("rdap", "domain"), subject("DOMAIN", "example.com"));
    assert.deepEqual(f.entities[0]?.attributes, {
      registrar: "Example Registrar, Inc.",
      registrar_iana_id: "376",
      registrant_org: "Example Holdings Ltd",
      created: "2026-11-24T09:12:00Z",
      expires: "2027-11-24T09:12:00Z",
      updated: "2026-11-25T10:00:00Z",
      domain_status: "client delete prohibited, client transfer prohibited, client update prohibited",
      nameservers: "ns1.example.net, ns2.example.net",
    });
    assert.deepEqual(
      f.relations.map((r) => `${r.name} ${r.to.type}:${r.to.name}`),
      [
        "registered with DOMAIN_REGISTRAR:Example Registrar, Inc.",
        "registered by DOMAIN_REGISTRANT:Example Holdings Ltd",
      ],
    );
  });

  it("normalizes an IP network: name, handle, range, owner; refuses an error body", () => {
    const f = normalizeRdap(fixture("rdap", "ip-network"), subject("IPV4", RDAP_IP));
    assert.deepEqual(f.entities[0]?.attributes, {
      network_name: "TEST-NET-1",
      network_handle: "NET-192-0-2-0-1",
      network_range: "192.0.2.0 - 192.0.2.255",
      network_type: "IANA Special Use",
      network_country: "US",
      network_owner: "Internet Assigned Numbers Authority",
      network_registered: "2010-01-01T00:00:00-05:00",
      network_updated: "2013-08-30T15:00:00-04:00",
    });
    assert.throws(
      () => normalizeRdap(fixture("rdap", "error-404"), subject("DOMAIN", "x.com")),
      /not an RDAP/,
    );
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeRdap();
    });
    after(() => fake.close());

    it("asks the registry the bootstrap names for the TLD or the longest block", async () => {
      const domain = await rdap.fetch(subject("DOMAIN", "Example.COM."), {}, vendorContext(fake.url));
      assert.equal((domain as { ldhName: string }).ldhName, "EXAMPLE.COM");
      const ip = await rdap.fetch(subject("IPV4", RDAP_IP), {}, vendorContext(fake.url));
      assert.equal((ip as { name: string }).name, "TEST-NET-1");
      assert.deepEqual(
        fake.calls.map((c) => c.url),
        ["/rdap/dns.json", `/registry/com/v1/domain/${RDAP_DOMAIN}`, "/rdap/ipv4.json", `/rir/ip/${RDAP_IP}`],
      );
      assert.match(String(fake.calls[1]?.headers.accept), /application\/rdap\+json/);
    });

    it("reads an unregistered name as not known, and a TLD without RDAP as nothing to ask", async () => {
      assert.equal(
        await rdap.fetch(subject("DOMAIN", "unregistered.com"), {}, vendorContext(fake.url)),
        null,
      );
      assert.equal(await rdap.fetch(subject("DOMAIN", "example.zz"), {}, vendorContext(fake.url)), null);
      assert.equal(await rdap.fetch(subject("IPV6", "2001:db8::1"), {}, vendorContext(fake.url)), null);
    });
  });
});
