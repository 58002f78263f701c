import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { normalizeShodan, shodan } from "../../../src/intel/connectors/shodan.ts";
import { VendorError } from "../../../src/intel/connectors/types.ts";
import { fixture as loadFixture, vendorContext } from "../../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";

const fixture = (name: string) => loadFixture("shodan", name);
const IP = "198.51.100.23";

describe("shodan connector", () => {
  it("normalizes a host: ports, services, hostnames, ASN, CVEs", () => {
    const f = normalizeShodan(fixture("host"), { superType: "OBSERVABLE", type: "IPV4", value: IP });
    assert.deepEqual(f.entities[0]?.attributes, {
      open_ports: "22,443",
      operator: "Example Hosting B.V.",
      isp: "Example Hosting B.V.",
      country: "NL",
      city: "Amsterdam",
      tags: "cloud",
    });
    assert.deepEqual(
      f.entities.slice(1).map((e) => `${e.type}:${e.name}`),
      [
        "ASN:AS64500",
        "HOSTNAME:vps23.example-hosting.nl",
        "CVE:CVE-2023-38408",
        "CVE:CVE-2024-6387",
        "SERVICE:198.51.100.23:22/tcp OpenSSH 8.9p1",
        "SERVICE:198.51.100.23:443/tcp nginx 1.24.0",
      ],
    );
    assert.deepEqual(
      f.relations.map((r) => r.name),
      ["belongs to", "resolves", "vulnerable to", "vulnerable to", "exposes", "exposes"],
    );
    assert.deepEqual(
      f.events.map((e) => e.firstSeen),
      ["2026-11-21T04:10:11Z", "2026-11-20T22:00:00Z"],
    );
  });

  it("normalizes a domain's DNS into records and the IPs they point to", () => {
    const f = normalizeShodan(fixture("domain"), {
      superType: "OBSERVABLE",
      type: "DOMAIN",
      value: "example.org",
    });
    assert.equal(f.entities[0]?.attributes?.subdomains, "www,mail");
    const names = f.entities.slice(1).map((e) => `${e.type}:${e.name}`);
    assert.ok(names.includes("DNS_RECORD:A www.example.org 192.0.2.10"));
    assert.ok(names.includes("IPV6:2001:db8::25"));
    assert.ok(names.includes("DNS_RECORD:MX example.org mail.example.org"));
    assert.ok(f.relations.some((r) => r.name === "points to" && r.to.name === "192.0.2.10"));
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor({
        [`/shodan/host/${IP}?key=sh-key`]: { body: fixture("host") },
        "/dns/domain/example.org?key=sh-key": { body: fixture("domain") },
        "/shodan/host/192.0.2.200?key=sh-key": { status: 404, body: fixture("not_found") },
        [`/shodan/host/${IP}?key=bad`]: { status: 401, body: fixture("auth_error") },
      });
    });
    after(() => fake.close());
    const ctx = () => vendorContext(fake.url);
    const ip = (value: string) => ({ superType: "OBSERVABLE", type: "IPV4", value });

    it("asks host and DNS endpoints with the key as a query parameter", async () => {
      assert.ok(await shodan.fetch(ip(IP), { api_key: "sh-key" }, ctx()));
      assert.ok(
        await shodan.fetch(
          { superType: "OBSERVABLE", type: "DOMAIN", value: "example.org" },
          { api_key: "sh-key" },
          ctx(),
        ),
      );
      assert.deepEqual(
        fake.calls.slice(-2).map((c) => c.url),
        [`/shodan/host/${IP}?key=sh-key`, "/dns/domain/example.org?key=sh-key"],
      );
    });

    it("reads 404 as not known and 401 as invalid credentials", async () => {
      assert.equal(await shodan.fetch(ip("192.0.2.200"), { api_key: "sh-key" }, ctx()), null);
      await assert.rejects(
        shodan.fetch(ip(IP), { api_key: "bad" }, ctx()),
        (e: unknown) => e instanceof VendorError && e.code === "invalid_credentials",
      );
    });
  });
});
