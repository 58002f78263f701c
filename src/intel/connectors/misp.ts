/**
 * A user's MISP instance (its URL is a credential): `POST /attributes/restSearch` for the value,
 * with the key in `Authorization`. Each MISP event holding the value becomes an EXT_DOC/REPORT
 * that documents the subject; tags (TLP, galaxies) come along.
 */
import {
  type Connector,
  type EntityDraft,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
} from "./types.ts";

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

export function normalizeMisp(raw: unknown, subject: Subject): Fragment {
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

export const misp: Connector = {
  id: "misp",
  vendor: "MISP",
  description: "Your MISP instance: the events that hold an observable, with their tags.",
  supportedTypes: ["IPV4", "IPV6", "DOMAIN", "HOSTNAME", "URL", "MD5", "SHA1", "SHA256", "EMAIL", "CVE"].map(
    (type) => ({ superType: "OBSERVABLE", type }),
  ),
  credentialFields: ["api_key", "url"],
  defaultBaseUrl: "",
  baseUrlCredential: "url",
  async fetch(subject, credentials, { http }) {
    const res = await http.post("/attributes/restSearch", {
      json: { returnFormat: "json", value: subject.value, includeEventTags: true, limit: 100 },
      headers: { Authorization: credentials.api_key ?? "" },
    });
    const body = res.json() as { response?: { Attribute?: unknown[] } };
    return body.response?.Attribute?.length ? body : null;
  },
  normalize: normalizeMisp,
};
