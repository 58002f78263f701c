import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseService, serviceName } from "../../../src/intel/connectors/service.ts";
import { shodan } from "../../../src/intel/connectors/shodan/index.ts";
import { normalizeShodan } from "../../../src/intel/connectors/shodan/normalize.ts";
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

describe("shodan: services, servers and DNS records", () => {
  it("names and parses services the same way (IPv6 in brackets, a trailing label ignored)", () => {
    assert.equal(serviceName("2001:db8::1", 443, "tcp", "nginx"), "[2001:db8::1]:443/tcp nginx");
    assert.deepEqual(parseService("[2001:db8::1]:443/tcp nginx"), {
      ip: "2001:db8::1",
      port: 443,
      transport: "tcp",
    });
    assert.deepEqual(parseService("198.51.100.23:22"), { ip: "198.51.100.23", port: 22 });
    assert.equal(parseService("198.51.100.23:70000"), null);
    assert.equal(parseService("example.org:80"), null);
  });

  it("normalizes one service from its banner: facts, the IP exposing it, its CVEs, when it was seen", () => {
    const subject = { superType: "OBSERVABLE", type: "SERVICE", value: `${IP}:22` };
    const f = normalizeShodan(fixture("host"), subject);
    assert.deepEqual(f.entities[0], {
      superType: "OBSERVABLE",
      type: "SERVICE",
      name: `${IP}:22`,
      attributes: {
        port: "22",
        transport: "tcp",
        product: "OpenSSH",
        version: "8.9p1",
        module: "ssh",
        cpe: "cpe:2.3:a:openbsd:openssh:8.9p1",
      },
    });
    assert.deepEqual(
      f.relations.map((r) => `${r.from.name} ${r.name} ${r.to.name}`),
      [
        `${IP} exposes ${IP}:22`,
        `${IP}:22 vulnerable to CVE-2023-38408`,
        `${IP}:22 vulnerable to CVE-2024-6387`,
      ],
    );
    assert.equal(f.entities.find((e) => e.name === "CVE-2024-6387")?.attributes?.cvss, "8.1");
    assert.deepEqual(
      f.events.map((e) => [e.firstSeen, e.involved.name]),
      [["2026-11-21T04:10:11Z", `${IP}:22`]],
    );
    assert.deepEqual(normalizeShodan(fixture("host"), { ...subject, value: `${IP}:8080` }).entities, []);
    assert.deepEqual(normalizeShodan(fixture("host"), { ...subject, value: `${IP}:22/udp` }).entities, []);
  });

  it("normalizes a server: the device carries the host's facts and the IP is assigned to it", () => {
    const subject = { superType: "DEVICE", type: "SERVER", value: "vps23.example-hosting.nl" };
    const f = normalizeShodan(fixture("host"), subject);
    assert.equal(f.entities[0]?.type, "SERVER");
    assert.equal(f.entities[0]?.attributes?.open_ports, "22,443");
    assert.ok(
      f.relations.some((r) => r.name === "assigned to" && r.from.name === IP && r.to.type === "SERVER"),
    );
    assert.ok(f.relations.some((r) => r.name === "exposes" && r.to.name === `${IP}:443/tcp nginx 1.24.0`));
  });

  it("finds a DNS record among the domain's records, with what it points to", () => {
    const subject = { superType: "OBSERVABLE", type: "DNS_RECORD", value: "A www.example.org 192.0.2.10" };
    const f = normalizeShodan(fixture("domain"), subject);
    assert.deepEqual(
      f.entities.map((e) => `${e.type}:${e.name}`),
      ["DNS_RECORD:A www.example.org 192.0.2.10", "HOSTNAME:www.example.org", "IPV4:192.0.2.10"],
    );
    assert.equal(f.entities[0]?.attributes?.last_seen, "2026-11-19T10:00:00Z");
    assert.deepEqual(
      f.relations.map((r) => r.name),
      ["has DNS record", "points to"],
    );
    const mx = normalizeShodan(fixture("domain"), { ...subject, value: "MX example.org. mail.example.org." });
    assert.deepEqual(
      mx.entities.slice(1).map((e) => `${e.type}:${e.name}`),
      ["DOMAIN:example.org", "HOSTNAME:mail.example.org"],
    );
    assert.deepEqual(
      normalizeShodan(fixture("domain"), { ...subject, value: "A www.example.org 192.0.2.99" }).entities,
      [],
    );
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor({
        [`/shodan/host/${IP}?key=sh-key`]: { body: fixture("host") },
        "/dns/resolve?hostnames=vps23.example-hosting.nl&key=sh-key": { body: fixture("resolve") },
        "/dns/resolve?hostnames=unknown.example-hosting.nl&key=sh-key": { body: fixture("resolve_unknown") },
        "/dns/domain/www.example.org?key=sh-key": { body: fixture("domain") },
      });
    });
    after(() => fake.close());
    const ask = (superType: string, type: string, value: string) =>
      shodan.fetch({ superType, type, value }, { api_key: "sh-key" }, vendorContext(fake.url));

    it("asks the host API for a service's IP and a server (a host name resolved first), the DNS API for a record's name", async () => {
      assert.ok(await ask("OBSERVABLE", "SERVICE", `${IP}:443/tcp nginx 1.24.0`));
      assert.ok(await ask("DEVICE", "SERVER", "vps23.example-hosting.nl"));
      assert.ok(await ask("OBSERVABLE", "DNS_RECORD", "A www.example.org 192.0.2.10"));
      assert.equal(await ask("DEVICE", "SERVER", "unknown.example-hosting.nl"), null);
      assert.equal(await ask("OBSERVABLE", "SERVICE", "not a service"), null);
      assert.deepEqual(
        fake.calls.map((c) => c.url),
        [
          `/shodan/host/${IP}?key=sh-key`,
          "/dns/resolve?hostnames=vps23.example-hosting.nl&key=sh-key",
          `/shodan/host/${IP}?key=sh-key`,
          "/dns/domain/www.example.org?key=sh-key",
          "/dns/resolve?hostnames=unknown.example-hosting.nl&key=sh-key",
        ],
      );
    });
  });
});
