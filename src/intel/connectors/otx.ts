/**
 * AlienVault OTX DirectConnect v1: `GET /api/v1/indicators/{kind}/{value}/{section}` with the
 * `X-OTX-API-KEY` header. The general section gives pulses (community reports), malware families
 * and adversaries; passive_dns gives resolutions over time.
 */
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

const KINDS: Record<string, string> = {
  IPV4: "IPv4",
  IPV6: "IPv6",
  DOMAIN: "domain",
  HOSTNAME: "hostname",
  URL: "url",
  MD5: "file",
  SHA1: "file",
  SHA256: "file",
  CVE: "cve",
};
const WITH_PASSIVE_DNS = new Set(["IPV4", "IPV6", "DOMAIN", "HOSTNAME"]);

interface Pulse {
  id?: string;
  name?: string;
  description?: string;
  created?: string;
  modified?: string;
  tags?: string[];
  references?: string[];
  adversary?: string;
  TLP?: string;
  malware_families?: Array<{ display_name?: string; id?: string }>;
  author?: { username?: string };
}

interface OtxRaw {
  general?: {
    pulse_info?: { count?: number; pulses?: Pulse[] };
    reputation?: number;
    country_code?: string;
    asn?: string;
  };
  passive_dns?: {
    passive_dns?: Array<{
      address?: string;
      first?: string;
      last?: string;
      hostname?: string;
      record_type?: string;
    }>;
  };
}

/** OTX times have no zone: UTC. */
const otxTime = (t: string | undefined) => (t ? `${t.slice(0, 19)}Z` : undefined);
const TLPS = new Set(["RED", "AMBER", "GREEN", "WHITE"]);

export function normalizeOtx(raw: unknown, subject: Subject): Fragment {
  const r = (raw ?? {}) as OtxRaw;
  const root = rootRef(subject);
  const pulses = r.general?.pulse_info?.pulses ?? [];
  const attributes: Record<string, string> = {
    otx_pulse_count: String(r.general?.pulse_info?.count ?? pulses.length),
  };
  if (r.general?.reputation !== undefined) attributes.otx_reputation = String(r.general.reputation);
  if (r.general?.country_code) attributes.country = r.general.country_code;
  if (r.general?.asn) attributes.asn = r.general.asn.split(" ")[0] ?? r.general.asn;
  const tags = [...new Set(pulses.flatMap((p) => p.tags ?? []))];
  if (tags.length) attributes.tags = tags.join(",");
  const entities: EntityDraft[] = [{ ...root, attributes }];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  for (const p of pulses) {
    if (!p.name) continue;
    const report: EntityRef = { superType: "EXT_DOC", type: "REPORT", name: p.name };
    const tlp = p.TLP?.toUpperCase();
    entities.push({
      ...report,
      description: p.description ?? "",
      sourceUrl: p.id ? `https://otx.alienvault.com/pulse/${p.id}` : "",
      ...(tlp && TLPS.has(tlp) ? { tlp: tlp as "RED" | "AMBER" | "GREEN" | "WHITE" } : {}),
      attributes: {
        ...(p.author?.username ? { author: p.author.username } : {}),
        ...(p.tags?.length ? { tags: p.tags.join(",") } : {}),
        ...(p.references?.length ? { references: p.references.slice(0, 10).join(" ") } : {}),
        ...(p.created ? { created: otxTime(p.created) ?? "" } : {}),
      },
    });
    relations.push({ name: "documents", from: report, to: root });
    for (const family of p.malware_families ?? []) {
      const name = family.display_name ?? family.id;
      if (!name) continue;
      const threat = { superType: "THREAT", type: "MALWARE", name };
      entities.push(threat);
      relations.push({ name: "associated threat", from: root, to: threat });
    }
    if (p.adversary) {
      const actor = { superType: "ACTOR", type: "THREAT_ACTOR", name: p.adversary };
      entities.push(actor);
      relations.push({ name: "mentions", from: report, to: actor });
    }
  }
  for (const rec of r.passive_dns?.passive_dns ?? []) {
    const first = otxTime(rec.first);
    if (!rec.address || !rec.hostname || !first) continue;
    const ipType = rec.record_type === "AAAA" ? "IPV6" : rec.record_type === "A" ? "IPV4" : undefined;
    const isIpSubject = subject.type === "IPV4" || subject.type === "IPV6";
    const other: EntityRef | undefined = isIpSubject
      ? { superType: "OBSERVABLE", type: "HOSTNAME", name: rec.hostname }
      : ipType
        ? { superType: "OBSERVABLE", type: ipType, name: rec.address }
        : undefined;
    if (other) {
      entities.push(other);
      relations.push(
        isIpSubject
          ? { name: "resolves", from: other, to: root }
          : { name: "resolves", from: root, to: other },
      );
    }
    events.push({
      type: "PASSIVE_DNS",
      name: `${rec.record_type ?? "?"} ${rec.hostname} → ${rec.address}`,
      firstSeen: first,
      lastSeen: otxTime(rec.last) ?? first,
      involved: root,
    });
  }
  return { entities, relations, events };
}

export const otx: Connector = {
  id: "otx",
  vendor: "AlienVault OTX",
  description: "Community pulses, malware families, adversaries and passive DNS.",
  supportedTypes: Object.keys(KINDS).map((type) => ({ superType: "OBSERVABLE", type })),
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://otx.alienvault.com",
  async fetch(subject, credentials, { http }) {
    const kind = KINDS[subject.type];
    if (!kind) return null;
    const base = `/api/v1/indicators/${kind}/${encodeURIComponent(subject.value)}`;
    const headers = { "X-OTX-API-KEY": credentials.api_key ?? "" };
    const general = await http.get(`${base}/general`, { headers });
    if (general.status === 404) return null;
    const raw: OtxRaw = { general: general.json() as OtxRaw["general"] };
    if (WITH_PASSIVE_DNS.has(subject.type)) {
      const pdns = await http.get(`${base}/passive_dns`, { headers });
      if (pdns.status !== 404) raw.passive_dns = pdns.json() as OtxRaw["passive_dns"];
    }
    return raw;
  },
  normalize: normalizeOtx,
};
