/**
 * ThreatFox answers → graph: each IOC with its malware family ("indicates"), a HIT event per
 * IOC, and for a threat actor the IOCs tagged with its name.
 */

import { abuseDate, threatRef } from "../abusech.ts";
import { answerObject, objectsIn } from "../answer.ts";
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

interface ThreatFoxIoc {
  ioc?: string;
  threat_type?: string;
  ioc_type?: string;
  malware_printable?: string;
  malware_alias?: string | null;
  confidence_level?: number;
  first_seen?: string;
  last_seen?: string | null;
  reporter?: string;
  tags?: string[] | null;
  id?: string;
}

export function normalizeThreatFox(raw: unknown, subject: Subject): Fragment {
  const iocs = objectsIn<ThreatFoxIoc>(answerObject<{ data?: unknown }>(raw, "ThreatFox").data);
  const root = rootRef(subject);
  const entities: EntityDraft[] = [];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  const confidence = Math.max(0, ...iocs.map((i) => i.confidence_level ?? 0));
  entities.push({
    ...root,
    attributes: {
      is_malicious: String(iocs.length > 0),
      threatfox_confidence: String(confidence),
      threat_types: [...new Set(iocs.map((i) => i.threat_type).filter(Boolean))].join(","),
      tags: [...new Set(iocs.flatMap((i) => i.tags ?? []))].join(","),
    },
  });
  for (const ioc of iocs) {
    if (ioc.malware_printable && ioc.malware_printable !== "Unknown malware") {
      const threat = threatRef(ioc.malware_printable);
      entities.push({ ...threat, attributes: ioc.malware_alias ? { aliases: ioc.malware_alias } : {} });
      relations.push({
        name: "associated threat",
        from: root,
        to: threat,
        attributes: { confidence: String(ioc.confidence_level ?? "") },
      });
    }
    const first = abuseDate(ioc.first_seen);
    if (first) {
      events.push({
        type: "HIT",
        name: `ThreatFox IOC: ${ioc.threat_type ?? "ioc"} (${ioc.ioc ?? subject.value})`,
        firstSeen: first,
        lastSeen: abuseDate(ioc.last_seen) ?? first,
        involved: root,
        attributes: {
          reporter: ioc.reporter ?? "",
          ioc_type: ioc.ioc_type ?? "",
          threatfox_id: String(ioc.id ?? ""),
        },
      });
    }
  }
  return { entities, relations, events };
}

const IOC_TYPES: Record<string, string> = {
  domain: "DOMAIN",
  url: "URL",
  md5_hash: "MD5",
  sha1_hash: "SHA1",
  sha256_hash: "SHA256",
};

/** A ThreatFox IOC as an entity: `ip:port` is a service, the rest map to their observable type. */
function iocRef(ioc: ThreatFoxIoc): EntityRef | undefined {
  if (!ioc.ioc) return undefined;
  if (ioc.ioc_type === "ip:port") {
    const service = parseService(ioc.ioc);
    return service
      ? { superType: "OBSERVABLE", type: "SERVICE", name: serviceName(service.ip, service.port) }
      : undefined;
  }
  const type = IOC_TYPES[ioc.ioc_type ?? ""];
  return type ? { superType: "OBSERVABLE", type, name: ioc.ioc } : undefined;
}

/**
 * A threat actor: the IOCs ThreatFox tags with its name (`taginfo`), attributed to it, the malware
 * families they belong to used by it; each IOC's sighting is an event of that IOC.
 */
export function normalizeThreatFoxActor(raw: unknown, subject: Subject): Fragment {
  const iocs = objectsIn<ThreatFoxIoc>(answerObject<{ data?: unknown }>(raw, "ThreatFox").data).slice(0, 100);
  const root = rootRef(subject);
  const malware = [
    ...new Set(
      iocs.map((i) => i.malware_printable).filter((m): m is string => !!m && m !== "Unknown malware"),
    ),
  ];
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: {
        threatfox_ioc_count: String(iocs.length),
        threat_types: [...new Set(iocs.map((i) => i.threat_type).filter(Boolean))].join(","),
      },
    },
  ];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  for (const name of malware) {
    entities.push(threatRef(name));
    relations.push({ name: "uses", from: root, to: threatRef(name) });
  }
  for (const ioc of iocs) {
    const ref = iocRef(ioc);
    if (!ref) continue;
    entities.push({ ...ref, attributes: { threatfox_confidence: String(ioc.confidence_level ?? "") } });
    relations.push({ name: "attributed to", from: ref, to: root });
    const first = abuseDate(ioc.first_seen);
    if (first)
      events.push({
        type: "HIT",
        name: `ThreatFox IOC: ${ioc.threat_type ?? "ioc"} tagged ${subject.value}`,
        firstSeen: first,
        lastSeen: abuseDate(ioc.last_seen) ?? first,
        involved: ref,
        attributes: { threatfox_id: String(ioc.id ?? ""), reporter: ioc.reporter ?? "" },
      });
  }
  return { entities, relations, events };
}

/** The connector's normalize: a threat actor's `taginfo` answer, or an observable's `search_ioc` answer. */
export function normalizeThreatFoxAnswer(raw: unknown, subject: Subject): Fragment {
  return subject.type === "THREAT_ACTOR"
    ? normalizeThreatFoxActor(raw, subject)
    : normalizeThreatFox(raw, subject);
}
