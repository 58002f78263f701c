/**
 * URLhaus (abuse.ch): malware URLs, the hosts serving them and payloads by hash. One form POST
 * per kind (/v1/url/, /v1/host/, /v1/payload/); statuses are read by ../abusech.ts.
 */

import { auth, observable, readStatus } from "../abusech.ts";
import type { Connector, Subject } from "../types.ts";
import { normalizeUrlhaus } from "./normalize.ts";

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
  ttlSeconds: 24 * 3600, // URL status (online/offline) changes daily
  disclosure: "third_party",
  keyPage: "https://auth.abuse.ch/",
  vendorPages: [{ url: "https://urlhaus.abuse.ch/browse.php?search={value}" }],
  // abuse.ch lists only what is reported as malicious: being listed is its verdict.
  verdict: {
    when: [{ attribute: "source_vendor", is: "lists", value: "urlhaus" }],
    cases: [{ attribute: "is_malicious", is: "=", value: "true", verdict: "malicious" }],
  },
  async fetch(subject, credentials, { http }) {
    const { path, form } = urlhausQuery(subject);
    const res = await http.post(path, { form, headers: auth(credentials) });
    return readStatus(res.json(), ["no_results"]);
  },
  normalize: normalizeUrlhaus,
};
