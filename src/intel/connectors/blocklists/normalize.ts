/**
 * Local blocklist matches → graph: `tor_exit` for the Tor list; `blocklisted` (the lists' names)
 * and `botnet_c2` / `phishing` for the others, with the age of each copy; a Feodo Tracker family
 * becomes a THREAT/MALWARE entity (`associated threat`); a HIT event per list, dated by the list.
 */
import { answerObject, objectsIn } from "../answer.ts";
import { facts } from "../facts.ts";
import {
  type EntityDraft,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
  VendorError,
} from "../types.ts";
import { BLOCKLISTS } from "./lists.ts";

interface Match {
  feed?: string;
  name?: string;
  value?: string;
  info?: Record<string, unknown>;
  fetchedAt?: string | null;
}

const meaningOf = new Map(BLOCKLISTS.map((l) => [l.id, l]));
const text = (v: unknown) => (typeof v === "string" ? v : "");
const iso = (v: unknown) => {
  const d = new Date(text(v).replace(" ", "T") + (/\d\d:\d\d:\d\d$/.test(text(v)) ? "Z" : ""));
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};

export function normalizeBlocklists(raw: unknown, subject: Subject): Fragment {
  const answer = answerObject<{ matches?: unknown }>(raw, "the blocklist copies");
  if (!Array.isArray(answer.matches)) throw new VendorError("bad_response", "no `matches` list");
  const matches = objectsIn<Match>(answer.matches).filter((m) => meaningOf.has(text(m.feed)));
  const root = rootRef(subject);
  const listed = (meaning: string) => matches.filter((m) => meaningOf.get(text(m.feed))?.meaning === meaning);
  const blocking = matches.filter((m) => meaningOf.get(text(m.feed))?.meaning !== "tor_exit");
  const families = [
    ...new Set(
      listed("botnet_c2")
        .map((m) => text(m.info?.malware))
        .filter(Boolean),
    ),
  ];
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: facts({
        tor_exit: listed("tor_exit").length ? "true" : undefined,
        blocklisted: [...new Set(blocking.map((m) => text(m.name)))].join(", "),
        botnet_c2: listed("botnet_c2").length ? families.join(", ") || "true" : undefined,
        phishing: listed("phishing").length ? "true" : undefined,
        spamhaus_sbl: listed("drop")
          .map((m) => text(m.info?.sbl))
          .filter(Boolean)
          .join(", "),
        blocklist_copies: matches.map((m) => `${text(m.feed)} ${text(m.fetchedAt)}`).join(", "),
      }),
    },
  ];
  const relations: RelationDraft[] = [];
  for (const family of families) {
    const threat = { superType: "THREAT", type: "MALWARE", name: family };
    entities.push(threat);
    relations.push({ name: "associated threat", from: root, to: threat });
  }
  const events: EventDraft[] = [];
  for (const m of matches) {
    const seen = iso(m.info?.first_seen) ?? iso(m.fetchedAt);
    if (!seen) continue;
    const last = iso(m.info?.last_online) ?? iso(m.fetchedAt) ?? seen;
    events.push({
      type: "HIT",
      name: `Listed on ${text(m.name)}`,
      firstSeen: seen,
      lastSeen: last < seen ? seen : last,
      involved: root,
    });
  }
  return { entities, relations, events };
}
