/**
 * Shodan answers → graph: a host's services, hostnames, ASN and CVEs; a domain's DNS records; one
 * service or server picked from the host's banners; a DNS record found among a domain's records.
 */

import { isIP } from "node:net";
import { objectsIn } from "../answer.ts";
import { dnsRecordFragment, parseDnsRecord } from "../dns-record.ts";
import { facts } from "../facts.ts";
import { parseService, serviceName } from "../service.ts";
import {
  type EntityDraft,
  type EntityRef,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
} from "../types.ts";

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
  ip_str?: string;
  data?: ShodanBanner[];
}

interface ShodanBanner {
  port?: number;
  transport?: string;
  product?: string;
  version?: string;
  timestamp?: string;
  cpe23?: string[];
  vulns?: Record<string, { cvss?: number; summary?: string }>;
  _shodan?: { module?: string };
}

interface ShodanDnsEntry {
  subdomain?: string;
  type?: string;
  value?: string;
  last_seen?: string;
}

interface ShodanDomain {
  domain?: string;
  subdomains?: string[];
  tags?: string[];
  data?: ShodanDnsEntry[];
}

/** Shodan's timestamps have microseconds and no zone: UTC. */
const shodanTime = (t: string | undefined) => (t ? `${t.slice(0, 19)}Z` : undefined);

const bannerLabel = (s: ShodanBanner) => [s.product, s.version].filter(Boolean).join(" ");

function normalizeHost(r: ShodanHost, subject: Subject, root: EntityRef = rootRef(subject)): Fragment {
  const ip = r.ip_str ?? subject.value;
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
  for (const s of objectsIn<ShodanBanner>(r.data)) {
    if (!s.port) continue;
    const service = {
      superType: "OBSERVABLE",
      type: "SERVICE",
      name: serviceName(ip, s.port, s.transport, bannerLabel(s)),
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
  for (const rec of objectsIn<ShodanDnsEntry>(r.data)) {
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

/** One service: the banner of that port (and transport) among the host's, its CVEs, when it was seen. */
function normalizeService(r: ShodanHost, subject: Subject): Fragment {
  const wanted = parseService(subject.value);
  const banner =
    wanted &&
    objectsIn<ShodanBanner>(r.data).find(
      (b) => b.port === wanted.port && (!wanted.transport || (b.transport ?? "tcp") === wanted.transport),
    );
  if (!wanted || !banner) return { entities: [], relations: [], events: [] };
  const root = rootRef(subject);
  const ip = { superType: "OBSERVABLE", type: isIP(wanted.ip) === 6 ? "IPV6" : "IPV4", name: wanted.ip };
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: facts({
        port: banner.port,
        transport: banner.transport ?? "tcp",
        product: banner.product,
        version: banner.version,
        module: banner._shodan?.module,
        cpe: banner.cpe23?.join(","),
      }),
    },
    ip,
  ];
  const relations: RelationDraft[] = [{ name: "exposes", from: ip, to: root }];
  for (const [cve, v] of Object.entries(banner.vulns ?? {})) {
    if (!/^CVE-\d{4}-\d{4,}$/.test(cve)) continue;
    const ref = { superType: "OBSERVABLE", type: "CVE", name: cve };
    entities.push({
      ...ref,
      ...(v.summary ? { description: v.summary } : {}),
      attributes: facts({ cvss: v.cvss }),
    });
    relations.push({ name: "vulnerable to", from: root, to: ref });
  }
  const seen = shodanTime(banner.timestamp);
  const events: EventDraft[] = seen
    ? [
        {
          type: "HIT",
          name: `Shodan saw ${banner.transport ?? "tcp"} port ${banner.port} open`,
          firstSeen: seen,
          lastSeen: seen,
          involved: root,
        },
      ]
    : [];
  return { entities, relations, events };
}

/** A server: the host's facts on the device, its IP assigned to it, its services and CVEs from it. */
function normalizeServer(r: ShodanHost, subject: Subject): Fragment {
  const root = rootRef(subject);
  const fragment = normalizeHost(r, subject, root);
  if (r.ip_str && isIP(r.ip_str)) {
    const ip = { superType: "OBSERVABLE", type: isIP(r.ip_str) === 6 ? "IPV6" : "IPV4", name: r.ip_str };
    fragment.entities.push(ip);
    fragment.relations.push({ name: "assigned to", from: ip, to: root });
  }
  return fragment;
}

/** A DNS record: found among the records Shodan lists for its name (subdomains joined to the domain). */
function normalizeRecord(r: ShodanDomain, subject: Subject): Fragment {
  const domain = r.domain ?? parseDnsRecord(subject.value)?.name ?? "";
  const listed = objectsIn<ShodanDnsEntry>(r.data)
    .filter((rec) => rec.type && rec.value)
    .map((rec) => ({
      type: rec.type!,
      name: rec.subdomain ? `${rec.subdomain}.${domain}` : domain,
      value: rec.value!,
      attributes: facts({ last_seen: shodanTime(rec.last_seen) }),
    }));
  return dnsRecordFragment(subject, listed);
}

export function normalizeShodan(raw: unknown, subject: Subject): Fragment {
  switch (subject.type) {
    case "DOMAIN":
      return normalizeDomain((raw ?? {}) as ShodanDomain, subject);
    case "DNS_RECORD":
      return normalizeRecord((raw ?? {}) as ShodanDomain, subject);
    case "SERVICE":
      return normalizeService((raw ?? {}) as ShodanHost, subject);
    case "SERVER":
      return normalizeServer((raw ?? {}) as ShodanHost, subject);
    default:
      return normalizeHost((raw ?? {}) as ShodanHost, subject);
  }
}
