/**
 * VirusTotal API v3: files (md5/sha1/sha256), domains, IP addresses and URLs, with the key in the
 * `x-apikey` header. A URL's id is the unpadded base64url of the URL.
 */

import { parseDnsRecord } from "../dns-record.ts";
import type { Connector, Subject } from "../types.ts";
import { normalizeVirusTotal } from "./normalize.ts";

export function vtObjectPath(subject: Subject): string | undefined {
  const v = subject.value.trim();
  switch (subject.type) {
    case "MD5":
    case "SHA1":
    case "SHA256":
      return `/api/v3/files/${encodeURIComponent(v.toLowerCase())}`;
    case "DOMAIN":
    case "HOSTNAME":
      return `/api/v3/domains/${encodeURIComponent(v.toLowerCase())}`;
    case "DNS_RECORD": {
      const record = parseDnsRecord(v);
      return record ? `/api/v3/domains/${encodeURIComponent(record.name)}` : undefined;
    }
    case "IPV4":
    case "IPV6":
      return `/api/v3/ip_addresses/${encodeURIComponent(v)}`;
    case "URL":
      return `/api/v3/urls/${Buffer.from(v).toString("base64url")}`;
    default:
      return undefined;
  }
}

const observable = (type: string) => ({ superType: "OBSERVABLE", type });

export const virustotal: Connector = {
  id: "virustotal",
  vendor: "VirusTotal",
  description: "VirusTotal API v3: file hashes, domains, IP addresses, URLs and DNS records.",
  supportedTypes: ["MD5", "SHA1", "SHA256", "DOMAIN", "HOSTNAME", "IPV4", "IPV6", "URL", "DNS_RECORD"].map(
    observable,
  ),
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://www.virustotal.com",
  // The Public API: 4 requests a minute and 500 a day per key.
  quota: { perMinute: 4, perDay: 500, source: "https://docs.virustotal.com/reference/public-vs-premium-api" },
  ttlSeconds: 24 * 3600, // detections change daily
  disclosure: "third_party",
  keyPage: "https://www.virustotal.com/gui/my-apikey",
  vendorPages: [{ url: "https://www.virustotal.com/gui/search/{value}" }],
  // Three engines or more: malicious; fewer, or any engine's "suspicious": suspicious.
  verdict: {
    when: [{ attribute: "vt_malicious", is: "present" }],
    cases: [
      { attribute: "vt_malicious", is: ">=", value: 3, verdict: "malicious" },
      { attribute: "vt_malicious", is: ">", value: 0, verdict: "suspicious" },
      { attribute: "vt_suspicious", is: ">", value: 0, verdict: "suspicious" },
    ],
    otherwise: "clean",
    detection: "VirusTotal {vt_score}",
  },
  async fetch(subject, credentials, ctx) {
    const path = vtObjectPath(subject);
    if (!path) return null;
    const res = await ctx.http.get(path, { headers: { "x-apikey": credentials.api_key ?? "" } });
    if (res.status === 404) return null;
    return res.json();
  },
  normalize: normalizeVirusTotal,
  async check(credentials, ctx) {
    await ctx.http.get("/api/v3/domains/example.com", { headers: { "x-apikey": credentials.api_key ?? "" } });
  },
};
