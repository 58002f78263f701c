/**
 * abuse.ch services — ThreatFox (IOCs with malware family and confidence), MalwareBazaar (samples
 * by hash) and URLhaus (malware URLs and the hosts serving them). Their APIs answer HTTP 200 with
 * a `query_status`; the key goes in the `Auth-Key` header.
 */
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

export function normalizeUrlhaus(raw: unknown, subject: Subject): Fragment {
  const r = raw as UrlhausUrl & { urls?: UrlhausUrl[]; firstseen?: string; url_count?: string };
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
  return { entities, relations, events };
}

export const urlhaus: Connector = {
  id: "urlhaus",
  vendor: "URLhaus (abuse.ch)",
  description: "Malware distribution URLs and the hosts serving them.",
  supportedTypes: ["URL", "DOMAIN", "HOSTNAME", "IPV4"].map(observable),
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://urlhaus-api.abuse.ch",
  async fetch(subject, credentials, { http }) {
    const res =
      subject.type === "URL"
        ? await http.post("/v1/url/", { form: { url: subject.value }, headers: auth(credentials) })
        : await http.post("/v1/host/", { form: { host: subject.value }, headers: auth(credentials) });
    return readStatus(res.json(), ["no_results"]);
  },
  normalize: normalizeUrlhaus,
};
