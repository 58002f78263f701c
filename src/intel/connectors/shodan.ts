/**
 * Shodan: host lookup for IPs (open ports and services, hostnames, ASN, vulnerabilities as CVE
 * entities) and DNS domain lookup (subdomains and their records). The key is a query parameter.
 */

import { facts } from "./facts.ts";
import {
  type Connector,
  type EntityDraft,
  type EntityRef,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
} from "./types.ts";

interface ShodanHost {
  ports?: number[];
  hostnames?: string[];
  domains?: string[];
  org?: string;
  isp?: string;
  asn?: string;
  country_code?: string;
  city?: string;
  os?: string | null;
  tags?: string[];
  vulns?: string[];
  last_update?: string;
  data?: Array<{
    port?: number;
    transport?: string;
    product?: string;
    version?: string;
    timestamp?: string;
    _shodan?: { module?: string };
  }>;
}

interface ShodanDomain {
  subdomains?: string[];
  tags?: string[];
  data?: Array<{ subdomain?: string; type?: string; value?: string; last_seen?: string }>;
}

/** Shodan's timestamps have microseconds and no zone: UTC. */
const shodanTime = (t: string | undefined) => (t ? `${t.slice(0, 19)}Z` : undefined);

function normalizeHost(r: ShodanHost, subject: Subject): Fragment {
  const root = rootRef(subject);
  const attributes = facts({
    open_ports: r.ports?.join(","),
    operator: r.org ?? r.isp,
    isp: r.isp,
    country: r.country_code,
    city: r.city,
    os: r.os,
    tags: r.tags?.join(","),
  });
  const entities: EntityDraft[] = [{ ...root, attributes }];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  const link = (to: EntityRef, name: string, from: EntityRef = root) => relations.push({ name, from, to });
  if (r.asn && /^AS\d+$/.test(r.asn)) {
    const asn = { superType: "OBSERVABLE", type: "ASN", name: r.asn };
    entities.push({ ...asn, attributes: r.org ? { operator: r.org } : {} });
    link(asn, "belongs to");
  }
  for (const h of r.hostnames ?? []) {
    const host = { superType: "OBSERVABLE", type: "HOSTNAME", name: h };
    entities.push(host);
    link(root, "resolves", host);
  }
  for (const cve of r.vulns ?? []) {
    if (!/^CVE-\d{4}-\d{4,}$/.test(cve)) continue;
    const ref = { superType: "OBSERVABLE", type: "CVE", name: cve };
    entities.push(ref);
    link(ref, "vulnerable to");
  }
  for (const s of r.data ?? []) {
    if (!s.port) continue;
    const label = [s.product, s.version].filter(Boolean).join(" ");
    const service = {
      superType: "OBSERVABLE",
      type: "SERVICE",
      name: `${subject.value}:${s.port}/${s.transport ?? "tcp"}${label ? ` ${label}` : ""}`,
    };
    entities.push({
      ...service,
      attributes: { port: String(s.port), ...(s._shodan?.module ? { module: s._shodan.module } : {}) },
    });
    link(service, "exposes");
    const seen = shodanTime(s.timestamp);
    if (seen)
      events.push({
        type: "HIT",
        name: `Shodan saw port ${s.port}/${s.transport ?? "tcp"} open`,
        firstSeen: seen,
        lastSeen: seen,
        involved: root,
      });
  }
  return { entities, relations, events };
}

function normalizeDomain(r: ShodanDomain, subject: Subject): Fragment {
  const root = rootRef(subject);
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: {
        ...(r.subdomains?.length ? { subdomains: r.subdomains.join(",") } : {}),
        ...(r.tags?.length ? { tags: r.tags.join(",") } : {}),
      },
    },
  ];
  const relations: RelationDraft[] = [];
  for (const rec of r.data ?? []) {
    if (!rec.type || !rec.value) continue;
    const name = rec.subdomain ? `${rec.subdomain}.${subject.value}` : subject.value;
    const record = { superType: "OBSERVABLE", type: "DNS_RECORD", name: `${rec.type} ${name} ${rec.value}` };
    entities.push({
      ...record,
      attributes: {
        record_type: rec.type,
        ...(rec.last_seen ? { last_seen: shodanTime(rec.last_seen) ?? "" } : {}),
      },
    });
    relations.push({ name: "has DNS record", from: root, to: record });
    const ipType = rec.type === "A" ? "IPV4" : rec.type === "AAAA" ? "IPV6" : undefined;
    if (ipType) {
      const target = { superType: "OBSERVABLE", type: ipType, name: rec.value };
      entities.push(target);
      relations.push({ name: "points to", from: record, to: target });
      if (!rec.subdomain) relations.push({ name: "resolves", from: root, to: target });
    }
  }
  return { entities, relations, events: [] };
}

export function normalizeShodan(raw: unknown, subject: Subject): Fragment {
  return subject.type === "DOMAIN"
    ? normalizeDomain((raw ?? {}) as ShodanDomain, subject)
    : normalizeHost((raw ?? {}) as ShodanHost, subject);
}

export const shodan: Connector = {
  id: "shodan",
  vendor: "Shodan",
  description: "Open ports, services, hostnames, ASN and vulnerabilities of IPs; DNS of domains.",
  supportedTypes: ["IPV4", "IPV6", "DOMAIN"].map((type) => ({ superType: "OBSERVABLE", type })),
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://api.shodan.io",
  async fetch(subject, credentials, { http }) {
    const path =
      subject.type === "DOMAIN"
        ? `/dns/domain/${encodeURIComponent(subject.value)}`
        : `/shodan/host/${encodeURIComponent(subject.value)}`;
    const res = await http.get(path, { query: { key: credentials.api_key ?? "" } });
    return res.status === 404 ? null : res.json();
  },
  normalize: normalizeShodan,
};
