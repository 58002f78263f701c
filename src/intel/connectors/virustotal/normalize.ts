/**
 * VirusTotal API v3 objects → graph: the subject with its verdict counts, the threats engines name,
 * resolutions, certificates and a HIT event. Pure; the fetch side is in index.ts.
 */

import { dnsRecordFragment, parseDnsRecord } from "../dns-record.ts";
import { facts } from "../facts.ts";
import { type EntityRef, type EventDraft, type Fragment, rootRef, type Subject } from "../types.ts";

const HASHES = ["MD5", "SHA1", "SHA256"] as const;

interface VtAttributes {
  last_analysis_stats?: Record<string, number>;
  last_analysis_results?: Record<string, { category?: string; engine_name?: string; result?: string | null }>;
  last_analysis_date?: number;
  first_submission_date?: number;
  last_submission_date?: number;
  times_submitted?: number;
  reputation?: number;
  tags?: string[];
  md5?: string;
  sha1?: string;
  sha256?: string;
  size?: number;
  type_description?: string;
  meaningful_name?: string;
  names?: string[];
  popular_threat_classification?: {
    suggested_threat_label?: string;
    popular_threat_category?: Array<{ value: string; count: number }>;
  };
  last_dns_records?: Array<{ type?: string; value?: string; ttl?: number }>;
  registrar?: string;
  creation_date?: number;
  country?: string;
  asn?: number;
  as_owner?: string;
  network?: string;
  url?: string;
  last_final_url?: string;
  title?: string;
  categories?: Record<string, string>;
}

const unixToIso = (s: number | undefined) =>
  typeof s === "number" && s > 0 ? new Date(s * 1000).toISOString() : undefined;

/** Colander's threat types for VirusTotal's popular threat categories. */
const THREAT_TYPES: Record<string, string> = {
  trojan: "TROJAN",
  ransomware: "RANSOMWARE",
  adware: "ADWARE",
  spyware: "SPYWARE",
  downloader: "LOADER",
  dropper: "DROPPER",
  backdoor: "BACKDOOR",
  rootkit: "ROOTKIT",
  miner: "CRYPTOJACKING",
  phishing: "PHISHING",
  worm: "MALWARE",
  virus: "MALWARE",
  pua: "GENERIC",
  hacktool: "GENERIC",
};

/** A DNS record subject: found among the records VirusTotal lists for its name. */
function normalizeVtRecord(attrs: VtAttributes, subject: Subject): Fragment {
  const name = parseDnsRecord(subject.value)?.name ?? "";
  const listed = (attrs.last_dns_records ?? [])
    .filter((r) => r.type && r.value)
    .map((r) => ({ type: r.type!, name, value: r.value!, attributes: facts({ ttl: r.ttl }) }));
  return dnsRecordFragment(subject, listed);
}

/** The verdict counts and the object's own facts, as the root entity's attributes. */
function rootAttributes(attrs: VtAttributes): Record<string, string> {
  const stats = attrs.last_analysis_stats ?? {};
  const total = Object.values(stats).reduce((a, b) => a + (typeof b === "number" ? b : 0), 0);
  const scored = total > 0;
  return facts({
    vt_score: scored ? `${stats.malicious ?? 0}/${total}` : undefined,
    vt_malicious: scored ? (stats.malicious ?? 0) : undefined,
    vt_suspicious: scored ? (stats.suspicious ?? 0) : undefined,
    is_malicious: scored ? (stats.malicious ?? 0) > 0 : undefined,
    vt_reputation: attrs.reputation,
    tags: attrs.tags?.join(","),
    file_type: attrs.type_description,
    size: attrs.size,
    meaningful_name: attrs.meaningful_name,
    names: attrs.names?.slice(0, 10).join(","),
    registrar: attrs.registrar,
    country: attrs.country,
    asn: attrs.asn === undefined ? undefined : `AS${attrs.asn}`,
    as_owner: attrs.as_owner,
    network: attrs.network,
    title: attrs.title,
    last_final_url: attrs.last_final_url,
    categories: attrs.categories ? [...new Set(Object.values(attrs.categories))].join(",") : undefined,
  });
}

/** The same file under its other hashes, and the threat engines agree on. */
function fileLinks(attrs: VtAttributes, subject: Subject, root: EntityRef, out: Fragment): void {
  for (const h of HASHES) {
    const value = attrs[h.toLowerCase() as "md5" | "sha1" | "sha256"];
    if (value && h !== subject.type && subject.superType === "OBSERVABLE") {
      const ref: EntityRef = { superType: "OBSERVABLE", type: h, name: value.toLowerCase() };
      out.entities.push(ref);
      out.relations.push({ name: "same file as", from: root, to: ref });
    }
  }
  const label = attrs.popular_threat_classification?.suggested_threat_label;
  if (label) {
    const category = attrs.popular_threat_classification?.popular_threat_category?.[0]?.value ?? "";
    const threat: EntityRef = { superType: "THREAT", type: THREAT_TYPES[category] ?? "GENERIC", name: label };
    out.entities.push({ ...threat, attributes: { category } });
    out.relations.push({ name: "associated threat", from: root, to: threat });
  }
}

/** A domain's DNS records (with the addresses they resolve to) and an address's ASN. */
function networkLinks(attrs: VtAttributes, subject: Subject, root: EntityRef, out: Fragment): void {
  for (const rec of attrs.last_dns_records ?? []) {
    if (!rec.type || !rec.value) continue;
    const record: EntityRef = {
      superType: "OBSERVABLE",
      type: "DNS_RECORD",
      name: `${rec.type} ${subject.value} ${rec.value}`,
    };
    out.entities.push({ ...record, attributes: { record_type: rec.type, ttl: String(rec.ttl ?? "") } });
    out.relations.push({ name: "has DNS record", from: root, to: record });
    const ipType = rec.type === "A" ? "IPV4" : rec.type === "AAAA" ? "IPV6" : undefined;
    if (ipType) {
      const ip: EntityRef = { superType: "OBSERVABLE", type: ipType, name: rec.value };
      out.entities.push(ip);
      out.relations.push({ name: "resolves", from: root, to: ip });
      out.relations.push({ name: "points to", from: record, to: ip });
    }
  }
  if (attrs.asn !== undefined) {
    const asn: EntityRef = { superType: "OBSERVABLE", type: "ASN", name: `AS${attrs.asn}` };
    out.entities.push({ ...asn, attributes: attrs.as_owner ? { operator: attrs.as_owner } : {} });
    out.relations.push({ name: "belongs to", from: root, to: asn });
  }
}

/** An AV_DETECTION per engine calling it malicious (engines in name order), and the submissions as a HIT. */
function vtEvents(attrs: VtAttributes, root: EntityRef): EventDraft[] {
  const events: EventDraft[] = [];
  const analysed = unixToIso(attrs.last_analysis_date);
  if (analysed) {
    for (const [engine, r] of Object.entries(attrs.last_analysis_results ?? {}).sort(([a], [b]) =>
      a.localeCompare(b),
    )) {
      if (r.category !== "malicious" || !r.result) continue;
      events.push({
        type: "AV_DETECTION",
        name: `${r.engine_name ?? engine}: ${r.result}`,
        firstSeen: analysed,
        lastSeen: analysed,
        involved: root,
        attributes: { engine: r.engine_name ?? engine, detection: r.result },
      });
    }
  }
  const firstSubmitted = unixToIso(attrs.first_submission_date);
  if (firstSubmitted) {
    events.push({
      type: "HIT",
      name: "Submitted to VirusTotal",
      firstSeen: firstSubmitted,
      lastSeen: unixToIso(attrs.last_submission_date) ?? firstSubmitted,
      count: attrs.times_submitted ?? 1,
      involved: root,
    });
  }
  return events;
}

/** A VirusTotal object (`data.attributes`) → the subject with its facts, its links and its events. */
export function normalizeVirusTotal(raw: unknown, subject: Subject): Fragment {
  const attrs = ((raw as { data?: { attributes?: VtAttributes } } | null)?.data?.attributes ??
    {}) as VtAttributes;
  if (subject.type === "DNS_RECORD") return normalizeVtRecord(attrs, subject);
  const root = rootRef(subject);
  const out: Fragment = {
    entities: [{ ...root, attributes: rootAttributes(attrs), sourceUrl: guiUrl(subject) }],
    relations: [],
    events: [],
  };
  fileLinks(attrs, subject, root, out);
  networkLinks(attrs, subject, root, out);
  out.events = vtEvents(attrs, root);
  return out;
}

function guiUrl(subject: Subject): string {
  const kind = {
    MD5: "file",
    SHA1: "file",
    SHA256: "file",
    DOMAIN: "domain",
    HOSTNAME: "domain",
    IPV4: "ip-address",
    IPV6: "ip-address",
    URL: "url",
  }[subject.type];
  const id = subject.type === "URL" ? Buffer.from(subject.value).toString("base64url") : subject.value;
  return kind ? `https://www.virustotal.com/gui/${kind}/${encodeURIComponent(id)}` : "";
}
