/**
 * URLhaus answers → graph: URLs with their status and threat, the payloads they served, the
 * hosts serving them, and for a payload hash the URLs that served it.
 */

import { abuseDate, sighting, threatRef } from "../abusech.ts";
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
} from "../types.ts";

interface UrlhausUrl {
  url?: string;
  url_status?: string;
  date_added?: string;
  threat?: string;
  tags?: string[] | null;
  reporter?: string;
  host?: string;
  blacklists?: Record<string, string>;
}

/** A payload URLhaus downloaded from a URL (`payloads` of a URL answer). */
interface UrlhausPayload {
  firstseen?: string;
  filename?: string | null;
  file_type?: string;
  response_size?: string;
  response_md5?: string;
  response_sha256?: string;
  signature?: string | null;
  virustotal?: { result?: string; percent?: string; link?: string } | null;
}

/** The payload API's answer for a hash: the file, and the URLs that served it. */
interface UrlhausFile {
  md5_hash?: string;
  sha256_hash?: string;
  file_type?: string;
  file_size?: string;
  signature?: string | null;
  firstseen?: string;
  lastseen?: string | null;
  url_count?: string;
  imphash?: string | null;
  ssdeep?: string | null;
  tlsh?: string | null;
  virustotal?: { result?: string; percent?: string; link?: string } | null;
  urls?: Array<{
    url?: string;
    url_status?: string;
    filename?: string | null;
    firstseen?: string;
    lastseen?: string | null;
  }>;
}

/** URLhaus dates are "2026-10-10 10:10:10" (UTC, with or without " UTC") or a bare "2026-10-10". */
const urlhausDate = (value: string | null | undefined) =>
  abuseDate(
    typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value.trim())
      ? `${value.trim()} 00:00:00`
      : value,
  );

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A URL's payloads as SHA-256 file entities the URL delivers, each first seen as an event of the file. */
function urlPayloads(payloads: UrlhausPayload[], url: EntityRef): Fragment {
  const fragment: Fragment = { entities: [], relations: [], events: [] };
  for (const p of payloads.slice(0, 100)) {
    const sha256 = p.response_sha256?.toLowerCase();
    if (!sha256 || !SHA256_HEX.test(sha256)) continue;
    const file: EntityRef = { superType: "OBSERVABLE", type: "SHA256", name: sha256 };
    fragment.entities.push({
      ...file,
      attributes: facts({
        md5: p.response_md5?.toLowerCase(),
        file_name: p.filename,
        file_type: p.file_type,
        file_size: p.response_size,
        signature: p.signature,
        vt_result: p.virustotal?.result,
      }),
    });
    fragment.relations.push({ name: "delivers", from: url, to: file });
    if (p.signature) {
      fragment.entities.push(threatRef(p.signature));
      fragment.relations.push({ name: "associated threat", from: file, to: threatRef(p.signature) });
    }
    const seen = urlhausDate(p.firstseen);
    if (seen)
      fragment.events.push({
        type: "HIT",
        name: "Payload downloaded by URLhaus",
        firstSeen: seen,
        lastSeen: seen,
        involved: file,
      });
  }
  return fragment;
}

/** A file hash: the payload's facts, its malware family, the URLs that delivered it. */
export function normalizeUrlhausPayload(raw: unknown, subject: Subject): Fragment {
  const r = (raw ?? {}) as UrlhausFile;
  const root = rootRef(subject);
  const entities: EntityDraft[] = [
    {
      ...root,
      attributes: facts({
        is_malicious: "true",
        md5: r.md5_hash,
        sha256: r.sha256_hash,
        file_type: r.file_type,
        file_size: r.file_size,
        signature: r.signature,
        urlhaus_url_count: r.url_count,
        imphash: r.imphash,
        ssdeep: r.ssdeep,
        tlsh: r.tlsh,
        vt_result: r.virustotal?.result,
      }),
    },
  ];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  if (r.signature) {
    entities.push(threatRef(r.signature));
    relations.push({ name: "associated threat", from: root, to: threatRef(r.signature) });
  }
  for (const u of objectsIn<NonNullable<UrlhausFile["urls"]>[number]>(r.urls).slice(0, 100)) {
    if (!u.url) continue;
    const url: EntityRef = { superType: "OBSERVABLE", type: "URL", name: u.url };
    entities.push({ ...url, attributes: facts({ url_status: u.url_status, file_name: u.filename }) });
    relations.push({ name: "delivers", from: url, to: root });
  }
  events.push(...sighting("Seen by URLhaus", urlhausDate(r.firstseen), urlhausDate(r.lastseen), root));
  return { entities, relations, events };
}

export function normalizeUrlhaus(raw: unknown, subject: Subject): Fragment {
  if (subject.type === "MD5" || subject.type === "SHA256") return normalizeUrlhausPayload(raw, subject);
  const r = answerObject<
    UrlhausUrl & { urls?: UrlhausUrl[]; firstseen?: string; url_count?: string; payloads?: UrlhausPayload[] }
  >(raw, "URLhaus");
  const root = rootRef(subject);
  const listed = Object.entries(r.blacklists ?? {}).filter(([, v]) => v && v !== "not listed");
  const attributes: Record<string, string> = { is_malicious: "true" };
  if (r.url_count) attributes.urlhaus_url_count = r.url_count;
  if (r.url_status) attributes.url_status = r.url_status;
  if (r.threat) attributes.threat = r.threat;
  if (listed.length) attributes.blacklists = listed.map(([k, v]) => `${k}:${v}`).join(",");
  if (r.tags?.length) attributes.tags = r.tags.join(",");
  const entities: EntityDraft[] = [{ ...root, attributes }];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  for (const u of objectsIn<UrlhausUrl>(r.urls)) {
    if (!u.url) continue;
    const url: EntityRef = { superType: "OBSERVABLE", type: "URL", name: u.url };
    entities.push({
      ...url,
      attributes: {
        url_status: u.url_status ?? "",
        threat: u.threat ?? "",
        ...(u.tags?.length ? { tags: u.tags.join(",") } : {}),
      },
    });
    relations.push({ name: "hosts", from: root, to: url });
    const added = abuseDate(u.date_added);
    if (added)
      events.push({
        type: "HIT",
        name: `URLhaus: ${u.threat ?? "malicious"} URL reported`,
        firstSeen: added,
        lastSeen: added,
        involved: url,
        attributes: { reporter: u.reporter ?? "" },
      });
  }
  const added = abuseDate(r.date_added ?? r.firstseen);
  if (added)
    events.push({
      type: "HIT",
      name: "Listed on URLhaus",
      firstSeen: added,
      lastSeen: added,
      involved: root,
    });
  const payloads = urlPayloads(objectsIn<UrlhausPayload>(r.payloads), root);
  return {
    entities: [...entities, ...payloads.entities],
    relations: [...relations, ...payloads.relations],
    events: [...events, ...payloads.events],
  };
}
