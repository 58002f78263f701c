/**
 * A loopback stand-in for IANA's RDAP bootstrap (RFC 9224 files) and the registries' RDAP servers
 * it names (RFC 9083 answers: the connector's recorded fixtures), for the rdap connector's tests.
 */
import { fixture } from "./connectors.ts";
import { type FakeRoutes, type SimpleFake, startFakeVendor } from "./fake-vendor.ts";

export const RDAP_DOMAIN = "example.com";
export const RDAP_IP = "192.0.2.10";

export async function startFakeRdap(): Promise<SimpleFake> {
  const routes: FakeRoutes = {};
  const fake = await startFakeVendor(routes, { errorCode: 404, title: "Not Found" });
  const bootstrap = (services: Array<[string[], string[]]>) => ({
    body: { version: "1.0", publication: "2026-11-20T00:00:00Z", description: "test bootstrap", services },
  });
  Object.assign(routes, {
    "/rdap/dns.json": bootstrap([
      [["net", "org"], ["https://rdap.invalid/other/"]],
      [["com"], [`${fake.url}/registry/com/v1/`]],
    ]),
    "/rdap/ipv4.json": bootstrap([
      [["198.51.100.0/24"], ["https://rdap.invalid/"]],
      [["192.0.0.0/8", "192.0.2.0/24"], [`${fake.url}/rir/`]],
    ]),
    "/rdap/ipv6.json": bootstrap([]),
    [`/registry/com/v1/domain/${RDAP_DOMAIN}`]: { body: fixture("rdap", "domain") },
    [`/rir/ip/${RDAP_IP}`]: { body: fixture("rdap", "ip-network") },
  });
  return fake;
}
