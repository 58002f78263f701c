/**
 * urlscan.io search: earlier scans of a domain, URL or IP (`GET /api/v1/search/?q=…`, header
 * `API-Key`), each a HIT event, with the page's IP, ASN and final URL.
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

interface UrlscanResult {
  task?: { time?: string; url?: string; uuid?: string };
  page?: {
    ip?: string;
    asn?: string;
    asnname?: string;
    country?: string;
    url?: string;
    title?: string;
    server?: string;
    status?: string;
  };
  result?: string;
}

/** The search query for a subject, in urlscan's ElasticSearch syntax (values quoted). */
export function urlscanQuery(subject: Subject): string | undefined {
  const quoted = `"${subject.value.replace(/(["\\])/g, "\\$1")}"`;
  switch (subject.type) {
    case "DOMAIN":
    case "HOSTNAME":
      return `domain:${quoted}`;
    case "IPV4":
    case "IPV6":
      return `ip:${quoted}`;
    case "URL":
      return `page.url:${quoted}`;
    default:
      return undefined;
  }
}

export function normalizeUrlscan(raw: unknown, subject: Subject): Fragment {
  const results = ((raw as { results?: UrlscanResult[] } | null)?.results ?? []).slice(0, 50);
  const root = rootRef(subject);
  const entities: EntityDraft[] = [
    { ...root, attributes: { urlscan_scans: String((raw as { total?: number }).total ?? results.length) } },
  ];
  const relations: RelationDraft[] = [];
  const events: EventDraft[] = [];
  for (const r of results) {
    const when = r.task?.time;
    if (when) {
      events.push({
        type: "HIT",
        name: "Scanned by urlscan.io",
        firstSeen: when,
        lastSeen: when,
        involved: root,
        attributes: {
          ...(r.page?.title ? { title: r.page.title } : {}),
          ...(r.result ? { result: r.result } : {}),
          ...(r.page?.status ? { http_status: r.page.status } : {}),
        },
      });
    }
    const ip = r.page?.ip;
    if (ip && subject.type !== "IPV4" && subject.type !== "IPV6") {
      const ipRef = { superType: "OBSERVABLE", type: ip.includes(":") ? "IPV6" : "IPV4", name: ip };
      entities.push({
        ...ipRef,
        attributes: {
          ...(r.page?.country ? { country: r.page.country } : {}),
          ...(r.page?.asn ? { asn: r.page.asn } : {}),
        },
      });
      relations.push({ name: "resolves", from: root, to: ipRef });
    }
    if (r.page?.asn && /^AS\d+$/.test(r.page.asn)) {
      const asn = { superType: "OBSERVABLE", type: "ASN", name: r.page.asn };
      entities.push({ ...asn, attributes: r.page.asnname ? { operator: r.page.asnname } : {} });
    }
  }
  return { entities, relations, events };
}

export const urlscan: Connector = {
  id: "urlscan",
  vendor: "urlscan.io",
  description: "Earlier scans of domains, URLs and IPs: pages, IPs, ASNs.",
  supportedTypes: ["DOMAIN", "HOSTNAME", "URL", "IPV4", "IPV6"].map((type) => ({
    superType: "OBSERVABLE",
    type,
  })),
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://urlscan.io",
  async fetch(subject, credentials, { http }) {
    const q = urlscanQuery(subject);
    if (!q) return null;
    const res = await http.get("/api/v1/search/", {
      query: { q, size: 50 },
      headers: { "API-Key": credentials.api_key ?? "" },
    });
    const body = res.json() as { results?: unknown[] };
    return body.results?.length ? body : null;
  },
  normalize: normalizeUrlscan,
};
