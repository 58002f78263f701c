/**
 * MISP restSearch answer → graph: each MISP event holding the value as a report documenting the
 * subject (with TLP and galaxy tags); for a threat actor, the attributes tagged with its galaxy.
 */
import { isIP } from "node:net";
import {
  type EntityDraft,
  type EntityRef,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
} from "../types.ts";

interface MispAttribute {
  value?: string;
  type?: string;
  category?: string;
  to_ids?: boolean;
  comment?: string;
  timestamp?: string;
  Event?: { id?: string; info?: string; date?: string; threat_level_id?: string; uuid?: string };
  Tag?: Array<{ name?: string }>;
}

const THREAT_LEVELS: Record<string, string> = { "1": "high", "2": "medium", "3": "low", "4": "undefined" };

const MISP_TYPES: Record<string, string> = {
  domain: "DOMAIN",
  hostname: "HOSTNAME",
  url: "URL",
  md5: "MD5",
  sha1: "SHA1",
  sha256: "SHA256",
  "email-src": "EMAIL",
  "email-dst": "EMAIL",
};

/** A MISP attribute as an observable (IPs by their family), undefined for types Loupe does not map. */
function attributeRef(a: MispAttribute): EntityRef | undefined {
  if (!a.value || !a.type) return undefined;
  if (a.type === "ip-dst" || a.type === "ip-src") {
    const family = isIP(a.value);
    return family
      ? { superType: "OBSERVABLE", type: family === 6 ? "IPV6" : "IPV4", name: a.value }
      : undefined;
  }
  const type = MISP_TYPES[a.type];
  return type ? { superType: "OBSERVABLE", type, name: a.value } : undefined;
}

export const actorTag = (name: string) => `misp-galaxy:threat-actor="${name.trim().replace(/"/g, "")}"`;

/** A threat actor: the MISP events carrying its galaxy tag document it; their attributes are attributed to it. */
export function normalizeMispActor(raw: unknown, subject: Subject): Fragment {
  const attrs = (
    (raw as { response?: { Attribute?: MispAttribute[] } } | null)?.response?.Attribute ?? []
  ).slice(0, 100);
  const root = rootRef(subject);
  const entities: EntityDraft[] = [{ ...root, attributes: { misp_attribute_count: String(attrs.length) } }];
  const relations: RelationDraft[] = [];
  for (const a of attrs) {
    const ref = attributeRef(a);
    if (ref) {
      entities.push({ ...ref, attributes: a.category ? { category: a.category } : {} });
      relations.push({
        name: "attributed to",
        from: ref,
        to: root,
        attributes: a.comment ? { comment: a.comment } : {},
      });
    }
    if (a.Event?.info) {
      const report = {
        superType: "EXT_DOC",
        type: "REPORT",
        name: `MISP event ${a.Event.id ?? "?"}: ${a.Event.info}`,
      };
      entities.push({ ...report, attributes: a.Event.date ? { date: a.Event.date } : {} });
      relations.push({ name: "documents", from: report, to: root });
    }
  }
  return { entities, relations, events: [] };
}

export function normalizeMisp(raw: unknown, subject: Subject): Fragment {
  if (subject.type === "THREAT_ACTOR") return normalizeMispActor(raw, subject);
  const attrs = (
    (raw as { response?: { Attribute?: MispAttribute[] } } | null)?.response?.Attribute ?? []
  ).slice(0, 100);
  const root = rootRef(subject);
  const tags = [...new Set(attrs.flatMap((a) => (a.Tag ?? []).map((t) => t.name ?? "")).filter(Boolean))];
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: {
        misp_attribute_count: String(attrs.length),
        misp_to_ids: String(attrs.some((a) => a.to_ids)),
        ...(tags.length ? { tags: tags.join(",") } : {}),
        ...(attrs[0]?.category ? { category: attrs[0].category } : {}),
      },
    },
  ];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  for (const a of attrs) {
    const ev = a.Event;
    if (!ev?.info) continue;
    const report = { superType: "EXT_DOC", type: "REPORT", name: `MISP event ${ev.id ?? "?"}: ${ev.info}` };
    const tlpTag = (a.Tag ?? []).map((t) => t.name ?? "").find((n) => n.startsWith("tlp:"));
    const tlp = tlpTag?.slice(4).toUpperCase();
    entities.push({
      ...report,
      ...(tlp === "RED" || tlp === "AMBER" || tlp === "GREEN" || tlp === "WHITE" ? { tlp } : {}),
      attributes: {
        ...(ev.date ? { date: ev.date } : {}),
        ...(ev.threat_level_id
          ? { threat_level: THREAT_LEVELS[ev.threat_level_id] ?? ev.threat_level_id }
          : {}),
        ...(ev.uuid ? { misp_uuid: ev.uuid } : {}),
      },
    });
    relations.push({
      name: "documents",
      from: report,
      to: root,
      attributes: a.comment ? { comment: a.comment } : {},
    });
    const seconds = Number(a.timestamp);
    if (Number.isFinite(seconds) && seconds > 0) {
      const when = new Date(seconds * 1000).toISOString();
      events.push({
        type: "ALERT",
        name: `Listed in MISP event ${ev.id ?? "?"}`,
        firstSeen: when,
        lastSeen: when,
        involved: root,
      });
    }
  }
  return { entities, relations, events };
}
