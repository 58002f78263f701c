/**
 * Shodan: host lookup for IPs (open ports and services, hostnames, ASN, vulnerabilities as CVE
 * entities), for a server (DEVICE/SERVER: an IP, or a host name resolved through /dns/resolve)
 * and for one service (`ip:port[/transport]`, found among the host's banners); DNS domain lookup
 * for domains and DNS records. The key is a query parameter.
 */
import { isIP } from "node:net";
import { isHostName, parseDnsRecord } from "../dns-record.ts";
import { parseService } from "../service.ts";
import type { Connector, FetchContext, Subject } from "../types.ts";
import { normalizeShodan } from "./normalize.ts";

/** The IP to ask Shodan's host API about, resolving a server's host name first; null when there is none. */
async function hostAddress(
  subject: Subject,
  key: string,
  http: FetchContext["http"],
): Promise<string | null> {
  if (subject.type === "SERVICE") return parseService(subject.value)?.ip ?? null;
  const value = subject.value.trim();
  if (isIP(value) || subject.type !== "SERVER") return value;
  // Only a host name is worth resolving: anything else is no server Shodan could know.
  if (!isHostName(value)) return null;
  const res = await http.get("/dns/resolve", { query: { hostnames: value, key } });
  if (res.status === 404) return null;
  const ip = (res.json() as Record<string, unknown> | null)?.[value];
  return typeof ip === "string" && isIP(ip) ? ip : null;
}

function domainPath(subject: Subject): string | null {
  const name = subject.type === "DNS_RECORD" ? parseDnsRecord(subject.value)?.name : subject.value;
  return name ? `/dns/domain/${encodeURIComponent(name)}` : null;
}

export const shodan: Connector = {
  id: "shodan",
  vendor: "Shodan",
  description:
    "Open ports, services, hostnames, ASN and vulnerabilities of IPs, servers and services; DNS of domains and DNS records.",
  supportedTypes: [
    ...["IPV4", "IPV6", "DOMAIN", "DNS_RECORD", "SERVICE"].map((type) => ({ superType: "OBSERVABLE", type })),
    { superType: "DEVICE", type: "SERVER" },
  ],
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://api.shodan.io",
  // About one request a second per key, whatever the plan.
  quota: { perMinute: 60, source: "https://developer.shodan.io/api" },
  ttlSeconds: 3 * 24 * 3600, // hosts are rescanned every few days
  disclosure: "third_party",
  keyPage: "https://account.shodan.io/",
  vendorPages: [
    { url: "https://www.shodan.io/host/{value}", types: ["IPV4", "IPV6"] },
    { url: "https://www.shodan.io/search?query={value}" },
  ],
  verdict: null, // what is exposed, not whether it is bad
  async fetch(subject, credentials, { http }) {
    const key = credentials.api_key ?? "";
    const isDns = subject.type === "DOMAIN" || subject.type === "DNS_RECORD";
    const address = isDns ? null : await hostAddress(subject, key, http);
    const path = isDns ? domainPath(subject) : address && `/shodan/host/${encodeURIComponent(address)}`;
    if (!path) return null;
    const res = await http.get(path, { query: { key } });
    return res.status === 404 ? null : res.json();
  },
  normalize: normalizeShodan,
};
