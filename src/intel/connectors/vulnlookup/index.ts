/**
 * CIRCL Vulnerability-Lookup (hashlookup's sibling service): what is known about a CVE, from the
 * CVE list and CISA's enrichment. No key needed. `GET /api/vulnerability/<id>`; an unknown id is
 * answered `{}` with HTTP 200, read here as "not known".
 */
import type { Connector } from "../types.ts";
import { normalizeVulnLookup } from "./normalize.ts";

export const vulnlookup: Connector = {
  id: "vulnlookup",
  vendor: "CIRCL Vulnerability-Lookup",
  description:
    "CVE records: description, CWEs, CVSS score, references, CISA known-exploited date; no key needed.",
  supportedTypes: [{ superType: "OBSERVABLE", type: "CVE" }],
  credentialFields: [],
  defaultBaseUrl: "https://vulnerability.circl.lu",
  ttlSeconds: 7 * 24 * 3600, // vulnerability records change slowly
  disclosure: "third_party",
  keyPage: null,
  vendorPages: [{ url: "https://vulnerability.circl.lu/vuln/{value}" }],
  verdict: null, // a CVE record describes a flaw; it is no verdict on a value
  async fetch(subject, _credentials, ctx) {
    const id = subject.value.trim().toUpperCase();
    if (!/^CVE-\d{4}-\d{4,}$/.test(id)) return null;
    const res = await ctx.http.get(`/api/vulnerability/${encodeURIComponent(id)}`);
    if (res.status === 404) return null;
    const body = res.json();
    const empty = typeof body === "object" && body !== null && Object.keys(body).length === 0;
    return empty ? null : body;
  },
  normalize: normalizeVulnLookup,
};
