/**
 * abuse.ch services — ThreatFox (IOCs with malware family and confidence), MalwareBazaar (samples
 * by hash) and URLhaus (malware URLs and the hosts serving them). Their APIs answer HTTP 200 with
 * a `query_status`; the key goes in the `Auth-Key` header.
 */
import { facts } from "./facts.ts";
import { parseService, serviceName } from "./service.ts";
import {
  type Connector,
  type EntityDraft,
  type EntityRef,
  type EventDraft,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
  VendorError,
} from "./types.ts";

const auth = (c: Record<string, string>) => ({ "Auth-Key": c.api_key ?? "" });

/** "2026-10-02 08:15:00 UTC" → ISO 8601. */
export function abuseDate(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.trim()) return undefined;
  const d = new Date(`${value.replace(" UTC", "").trim().replace(" ", "T")}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Maps abuse.ch's statuses: ok → the data; "no result" kinds → null; anything else is an error. */
function readStatus(body: unknown, notFound: string[]): unknown {
  const status = (body as { query_status?: string } | null)?.query_status;
  if (status === "ok") return body;
  if (status && notFound.includes(status)) return null;
  if (status && /auth|key/i.test(status))
    throw new VendorError("invalid_credentials", `abuse.ch refused the key (${status})`);
  throw new VendorError("bad_response", `abuse.ch answered query_status ${status ?? "missing"}`);
}

const observable = (type: string) => ({ superType: "OBSERVABLE", type });
const threatRef = (name: string): EntityRef => ({ superType: "THREAT", type: "MALWARE", name });

// ── ThreatFox ─────────────────────────────────────────────────────────────

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
  const iocs = ((raw as { data?: unknown }).data ?? []) as ThreatFoxIoc[];
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
  const iocs = (((raw as { data?: unknown } | null)?.data ?? []) as ThreatFoxIoc[]).slice(0, 100);
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

export const threatfox: Connector = {
  id: "threatfox",
  vendor: "ThreatFox (abuse.ch)",
  description:
    "IOCs (IPs, domains, URLs, hashes) with malware family and confidence; a threat actor's tagged IOCs.",
  supportedTypes: [
    ...["IPV4", "DOMAIN", "HOSTNAME", "URL", "MD5", "SHA1", "SHA256"].map(observable),
    { superType: "ACTOR", type: "THREAT_ACTOR" },
  ],
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://threatfox-api.abuse.ch",
  async fetch(subject, credentials, { http }) {
    if (subject.type === "THREAT_ACTOR") {
      const res = await http.post("/api/v1/", {
        json: { query: "taginfo", tag: subject.value.trim(), limit: 100 },
        headers: auth(credentials),
      });
      return readStatus(res.json(), ["no_result", "unknown_tag", "illegal_tag"]);
    }
    const res = await http.post("/api/v1/", {
      json: { query: "search_ioc", search_term: subject.value, exact_match: true },
      headers: auth(credentials),
    });
    return readStatus(res.json(), ["no_result"]);
  },
  normalize: (raw, subject) =>
    subject.type === "THREAT_ACTOR"
      ? normalizeThreatFoxActor(raw, subject)
      : normalizeThreatFox(raw, subject),
};

// ── MalwareBazaar ─────────────────────────────────────────────────────────

interface BazaarSample {
  sha256_hash?: string;
  sha1_hash?: string;
  md5_hash?: string;
  first_seen?: string;
  last_seen?: string | null;
  file_name?: string;
  file_size?: number;
  file_type_mime?: string;
  signature?: string | null;
  imphash?: string | null;
  ssdeep?: string | null;
  tlsh?: string | null;
  origin_country?: string | null;
  delivery_method?: string | null;
  tags?: string[] | null;
  intelligence?: { clamav?: string[] | null; downloads?: string };
}

export function normalizeMalwareBazaar(raw: unknown, subject: Subject): Fragment {
  const sample = (((raw as { data?: unknown }).data ?? []) as BazaarSample[])[0] ?? {};
  const root = rootRef(subject);
  const attributes: Record<string, string> = { is_malicious: "true" };
  for (const [k, v] of Object.entries({
    file_name: sample.file_name,
    size: sample.file_size,
    mimetype: sample.file_type_mime,
    signature: sample.signature,
    imphash: sample.imphash,
    ssdeep: sample.ssdeep,
    tlsh: sample.tlsh,
    origin_country: sample.origin_country,
    delivery_method: sample.delivery_method,
    tags: sample.tags?.join(","),
    downloads: sample.intelligence?.downloads,
  })) {
    if (v !== undefined && v !== null && v !== "") attributes[k] = String(v);
  }
  const entities: EntityDraft[] = [{ ...root, attributes }];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  for (const [type, value] of [
    ["MD5", sample.md5_hash],
    ["SHA1", sample.sha1_hash],
    ["SHA256", sample.sha256_hash],
  ] as const) {
    if (!value || type === subject.type) continue;
    const ref = { superType: "OBSERVABLE", type, name: value.toLowerCase() };
    entities.push(ref);
    relations.push({ name: "same file as", from: root, to: ref });
  }
  if (sample.signature) {
    const threat = threatRef(sample.signature);
    entities.push(threat);
    relations.push({ name: "associated threat", from: root, to: threat });
  }
  const first = abuseDate(sample.first_seen);
  if (first)
    events.push({
      type: "HIT",
      name: "Submitted to MalwareBazaar",
      firstSeen: first,
      lastSeen: abuseDate(sample.last_seen) ?? first,
      involved: root,
    });
  for (const detection of sample.intelligence?.clamav ?? []) {
    if (first)
      events.push({
        type: "AV_DETECTION",
        name: `ClamAV: ${detection}`,
        firstSeen: first,
        lastSeen: first,
        involved: root,
      });
  }
  return { entities, relations, events };
}

export const malwarebazaar: Connector = {
  id: "malwarebazaar",
  vendor: "MalwareBazaar (abuse.ch)",
  description: "Malware samples by hash: family, file facts, detections.",
  supportedTypes: ["MD5", "SHA1", "SHA256"].map(observable),
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://mb-api.abuse.ch",
  async fetch(subject, credentials, { http }) {
    const res = await http.post("/api/v1/", {
      form: { query: "get_info", hash: subject.value.toLowerCase() },
      headers: auth(credentials),
    });
    return readStatus(res.json(), ["hash_not_found", "no_results"]);
  },
  normalize: normalizeMalwareBazaar,
};

// ── URLhaus ───────────────────────────────────────────────────────────────

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
  for (const u of (r.urls ?? []).slice(0, 100)) {
    if (!u.url) continue;
    const url: EntityRef = { superType: "OBSERVABLE", type: "URL", name: u.url };
    entities.push({ ...url, attributes: facts({ url_status: u.url_status, file_name: u.filename }) });
    relations.push({ name: "delivers", from: url, to: root });
  }
  const first = urlhausDate(r.firstseen);
  if (first)
    events.push({
      type: "HIT",
      name: "Seen by URLhaus",
      firstSeen: first,
      lastSeen: urlhausDate(r.lastseen) ?? first,
      involved: root,
    });
  return { entities, relations, events };
}

export function normalizeUrlhaus(raw: unknown, subject: Subject): Fragment {
  if (subject.type === "MD5" || subject.type === "SHA256") return normalizeUrlhausPayload(raw, subject);
  const r = raw as UrlhausUrl & {
    urls?: UrlhausUrl[];
    firstseen?: string;
    url_count?: string;
    payloads?: UrlhausPayload[];
  };
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
  for (const u of r.urls ?? []) {
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
  const payloads = urlPayloads(r.payloads ?? [], root);
  return {
    entities: [...entities, ...payloads.entities],
    relations: [...relations, ...payloads.relations],
    events: [...events, ...payloads.events],
  };
}

/** Which URLhaus endpoint and form answer a subject: url, payload (by hash) or host. */
function urlhausQuery(subject: Subject): { path: string; form: Record<string, string> } {
  const value = subject.value.trim();
  if (subject.type === "URL") return { path: "/v1/url/", form: { url: value } };
  if (subject.type === "MD5") return { path: "/v1/payload/", form: { md5_hash: value.toLowerCase() } };
  if (subject.type === "SHA256") return { path: "/v1/payload/", form: { sha256_hash: value.toLowerCase() } };
  return { path: "/v1/host/", form: { host: value } };
}

export const urlhaus: Connector = {
  id: "urlhaus",
  vendor: "URLhaus (abuse.ch)",
  description:
    "Malware distribution URLs (with the payloads they served), the hosts serving them, and payloads by hash.",
  supportedTypes: ["URL", "DOMAIN", "HOSTNAME", "IPV4", "MD5", "SHA256"].map(observable),
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://urlhaus-api.abuse.ch",
  async fetch(subject, credentials, { http }) {
    const { path, form } = urlhausQuery(subject);
    const res = await http.post(path, { form, headers: auth(credentials) });
    return readStatus(res.json(), ["no_results"]);
  },
  normalize: normalizeUrlhaus,
};
