/**
 * urlscan.io search: earlier scans of a domain, URL or IP (`GET /api/v1/search/?q=…`, header
 * `API-Key`), each a HIT event, with the page's IP, ASN and final URL.
 */
import type { Connector, Subject } from "../types.ts";
import { normalizeUrlscan } from "./normalize.ts";

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
  ttlSeconds: 24 * 3600, // new scans arrive daily
  disclosure: "third_party",
  keyPage: "https://urlscan.io/user/profile/",
  vendorPages: [{ url: "https://urlscan.io/search/#{value}" }],
  verdict: null, // earlier scans of a page, not a judgement of it
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
