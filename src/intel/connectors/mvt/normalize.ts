/**
 * Local MVT matches → graph: the spyware each matching indicator stands for (a THREAT/SPYWARE
 * entity named after the bundle's malware, `associated threat`), the sources the index names and
 * the references (EXT_DOC/REPORT entities that `documents` the subject), and an ALERT event.
 */
import { answerObject, objectsIn } from "../answer.ts";
import { facts } from "../facts.ts";
import {
  type EntityDraft,
  type EntityRef,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
  VendorError,
} from "../types.ts";

interface Match {
  feed?: string;
  name?: string;
  kind?: string;
  value?: string;
  info?: { threat?: unknown; collection?: unknown; sources?: unknown; references?: unknown };
  fetchedAt?: string | null;
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
const MAX_REFERENCES = 20;

export function normalizeMvt(raw: unknown, subject: Subject): Fragment {
  const answer = answerObject<{ matches?: unknown }>(raw, "the MVT copies");
  if (!Array.isArray(answer.matches)) throw new VendorError("bad_response", "no `matches` list");
  const matches = objectsIn<Match>(answer.matches).filter(
    (m) => typeof m.info?.threat === "string" && m.info.threat,
  );
  const root = rootRef(subject);
  const threats = [...new Set(matches.map((m) => String(m.info?.threat)))];
  const sources = [...new Set(matches.flatMap((m) => strings(m.info?.sources)))];
  const collections = [
    ...new Set(matches.map((m) => String(m.info?.collection ?? m.name ?? "")).filter(Boolean)),
  ];
  const references = [...new Set(matches.flatMap((m) => strings(m.info?.references)))].slice(
    0,
    MAX_REFERENCES,
  );
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: facts({
        spyware: threats.join(", "),
        spyware_sources: sources.join(", "),
        spyware_collections: collections.join(", "),
        matched_indicator: [...new Set(matches.map((m) => `${m.kind} ${m.value}`))].join(", "),
      }),
    },
  ];
  const relations: RelationDraft[] = [];
  for (const name of threats) {
    const threat: EntityRef = { superType: "THREAT", type: "SPYWARE", name };
    entities.push({ ...threat, attributes: facts({ sources: sources.join(", ") }) });
    relations.push({ name: "associated threat", from: root, to: threat });
  }
  for (const url of references.filter((u) => /^https?:\/\//.test(u))) {
    const doc: EntityRef = { superType: "EXT_DOC", type: "REPORT", name: url };
    entities.push({ ...doc, sourceUrl: url });
    relations.push({ name: "documents", from: doc, to: root });
  }
  const seen = matches
    .map((m) => m.fetchedAt)
    .find((d): d is string => typeof d === "string" && !Number.isNaN(Date.parse(d)));
  const events: EventDraft[] =
    threats.length && seen
      ? [
          {
            type: "ALERT",
            name: `Listed as ${threats.join(", ")} by ${sources.join(", ") || "MVT indicators"}`,
            firstSeen: seen,
            lastSeen: seen,
            involved: root,
          },
        ]
      : [];
  return { entities, relations, events };
}
