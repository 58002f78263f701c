/**
 * OTX answers → graph: pulses as reports documenting the subject, their malware families and
 * adversaries, passive DNS as resolutions and events; for a threat actor, the pulses naming it.
 */
import { facts } from "../facts.ts";
import {
  type EntityDraft,
  type EntityRef,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
} from "../types.ts";

export const KINDS: Record<string, string> = {
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
  targeted_countries?: string[];
  industries?: string[];
  attack_ids?: Array<{ id?: string; name?: string; display_name?: string }>;
  malware_families?: Array<{ display_name?: string; id?: string }>;
  author?: { username?: string };
}

export interface OtxRaw {
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

/** A pulse as an EXT_DOC/REPORT entity (undefined without a name). */
function pulseReport(p: Pulse): EntityDraft | undefined {
  if (!p.name) return undefined;
  const tlp = p.TLP?.toUpperCase();
  return {
    superType: "EXT_DOC",
    type: "REPORT",
    name: p.name,
    description: p.description ?? "",
    sourceUrl: p.id ? `https://otx.alienvault.com/pulse/${p.id}` : "",
    ...(tlp && TLPS.has(tlp) ? { tlp: tlp as "RED" | "AMBER" | "GREEN" | "WHITE" } : {}),
    attributes: {
      ...(p.author?.username ? { author: p.author.username } : {}),
      ...(p.tags?.length ? { tags: p.tags.join(",") } : {}),
      ...(p.references?.length ? { references: p.references.slice(0, 10).join(" ") } : {}),
      ...(p.created ? { created: otxTime(p.created) ?? "" } : {}),
    },
  };
}

/** A threat actor: the pulses naming it (adversary or tag), the malware and techniques they list. */
export function normalizeOtxActor(raw: unknown, subject: Subject): Fragment {
  const wanted = subject.value.trim().toLowerCase();
  const pulses = (((raw ?? {}) as { results?: Pulse[] }).results ?? []).filter(
    (p) => p.adversary?.toLowerCase() === wanted || (p.tags ?? []).some((t) => t.toLowerCase() === wanted),
  );
  const root = rootRef(subject);
  const union = (pick: (p: Pulse) => string[] | undefined) =>
    [...new Set(pulses.flatMap((p) => pick(p) ?? []))].join(",");
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: facts({
        otx_pulse_count: pulses.length,
        targeted_countries: union((p) => p.targeted_countries),
        industries: union((p) => p.industries),
      }),
    },
  ];
  const relations: RelationDraft[] = [];
  for (const p of pulses) {
    const report = pulseReport(p);
    if (report) {
      entities.push(report);
      relations.push({ name: "documents", from: report, to: root });
    }
    const used = [
      ...(p.malware_families ?? []).map((f) => ({
        superType: "THREAT",
        type: "MALWARE",
        name: f.display_name ?? f.id,
      })),
      ...(p.attack_ids ?? []).map((a) => ({ superType: "TTP", type: "MITRE", name: a.display_name ?? a.id })),
    ];
    for (const ref of used) {
      if (!ref.name) continue;
      const named = { ...ref, name: ref.name };
      entities.push(named);
      relations.push({ name: "uses", from: root, to: named });
    }
  }
  return pulses.length ? { entities, relations, events: [] } : { entities: [], relations: [], events: [] };
}

export function normalizeOtx(raw: unknown, subject: Subject): Fragment {
  if (subject.type === "THREAT_ACTOR") return normalizeOtxActor(raw, subject);
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
    const report = pulseReport(p);
    if (!report) continue;
    entities.push(report);
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
