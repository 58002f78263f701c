/**
 * CIRCL Vulnerability-Lookup's record for a CVE (the CVE JSON 5 record format) → graph: the CVE
 * with its title, English description, dates, CWEs and best CVSS v3 score (the CNA's, else an ADP's
 * such as CISA's), and the record's references as reports documenting it. A CISA KEV entry is an event.
 */
import { answerObject, objectsIn } from "../answer.ts";
import { facts } from "../facts.ts";
import {
  type EntityDraft,
  type EventDraft,
  type Fragment,
  rootRef,
  type Subject,
  VendorError,
} from "../types.ts";

interface CvssV3 {
  baseScore?: number;
  baseSeverity?: string;
  vectorString?: string;
}

interface Metric {
  cvssV3_1?: CvssV3;
  cvssV3_0?: CvssV3;
  other?: { type?: string; content?: { dateAdded?: string } };
}

interface Container {
  title?: string;
  descriptions?: unknown;
  problemTypes?: unknown;
  metrics?: unknown;
  references?: unknown;
}

interface CveRecord {
  cveMetadata?: {
    cveId?: string;
    state?: string;
    assignerShortName?: string;
    datePublished?: string;
    dateUpdated?: string;
  };
  containers?: { cna?: Container; adp?: unknown };
}

/** At most this many references become reports: a famous CVE lists hundreds of mirrors. */
const MAX_REFERENCES = 20;

const englishText = (c: Container) =>
  objectsIn<{ lang?: string; value?: string }>(c.descriptions).find((d) => d.lang?.startsWith("en"))?.value;

const cwes = (c: Container) =>
  objectsIn<{ descriptions?: unknown }>(c.problemTypes)
    .flatMap((p) => objectsIn<{ cweId?: string }>(p.descriptions))
    .map((d) => d.cweId)
    .filter((id): id is string => typeof id === "string");

/** The first CVSS v3 score, looking at the CNA's metrics before the ADPs' (CISA's Vulnrichment). */
function bestCvss(containers: Container[]): CvssV3 | undefined {
  for (const c of containers)
    for (const m of objectsIn<Metric>(c.metrics)) {
      const cvss = m.cvssV3_1 ?? m.cvssV3_0;
      if (cvss && typeof cvss.baseScore === "number") return cvss;
    }
  return undefined;
}

/** CISA's Known Exploited Vulnerabilities date, when an ADP container carries it. */
function kevDate(containers: Container[]): string | undefined {
  for (const c of containers)
    for (const m of objectsIn<Metric>(c.metrics))
      if (m.other?.type === "kev" && typeof m.other.content?.dateAdded === "string") {
        const d = new Date(`${m.other.content.dateAdded}T00:00:00Z`);
        if (!Number.isNaN(d.getTime())) return d.toISOString();
      }
  return undefined;
}

export function normalizeVulnLookup(raw: unknown, subject: Subject): Fragment {
  const record = answerObject<CveRecord>(raw, "CIRCL Vulnerability-Lookup");
  // Every CVE record names its id; without it this is not a CVE record (an advisory in another format).
  const meta = record.cveMetadata;
  if (typeof meta?.cveId !== "string")
    throw new VendorError("bad_response", "no cveMetadata.cveId in the record");
  const cna: Container = record.containers?.cna ?? {};
  const containers = [cna, ...objectsIn<Container>(record.containers?.adp)];
  const cvss = bestCvss(containers);
  const root = rootRef(subject);
  const entities: EntityDraft[] = [
    {
      ...root,
      ...(cna.title ? { description: englishText(cna) ?? cna.title } : {}),
      attributes: facts({
        title: cna.title,
        state: meta.state,
        assigner: meta.assignerShortName,
        published: meta.datePublished,
        updated: meta.dateUpdated,
        cwe: cwes(cna).join(","),
        cvss_score: cvss?.baseScore,
        cvss_severity: cvss?.baseSeverity,
        cvss_vector: cvss?.vectorString,
      }),
    },
  ];
  const references = objectsIn<{ url?: string; name?: string }>(cna.references)
    .filter((r) => typeof r.url === "string" && /^https?:\/\//i.test(r.url))
    .slice(0, MAX_REFERENCES);
  for (const r of references)
    entities.push({
      superType: "EXT_DOC",
      type: "REPORT",
      name: r.url!,
      sourceUrl: r.url!,
      ...(r.name ? { description: r.name } : {}),
    });
  const events: EventDraft[] = [];
  const kev = kevDate(containers);
  if (kev)
    events.push({
      type: "ALERT",
      name: "Listed as known exploited (CISA KEV)",
      firstSeen: kev,
      lastSeen: kev,
      involved: root,
    });
  return {
    entities,
    relations: references.map((r) => ({
      name: "documents",
      from: { superType: "EXT_DOC", type: "REPORT", name: r.url! },
      to: root,
    })),
    events,
  };
}
