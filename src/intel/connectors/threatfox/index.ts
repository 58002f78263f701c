/**
 * ThreatFox (abuse.ch): IOCs with malware family and confidence, and a threat actor's tagged
 * IOCs (`taginfo`). POST /api/v1/ with a JSON query; statuses are read by ../abusech.ts.
 */

import { auth, observable, readStatus } from "../abusech.ts";
import type { Connector } from "../types.ts";
import { normalizeThreatFoxAnswer } from "./normalize.ts";

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
  ttlSeconds: 24 * 3600, // IOC reputation changes daily
  disclosure: "third_party",
  keyPage: "https://auth.abuse.ch/",
  vendorPages: [{ url: "https://threatfox.abuse.ch/browse.php?search=ioc%3A{value}" }],
  // abuse.ch lists only what is reported as malicious: being listed is its verdict.
  verdict: {
    cases: [{ attribute: "threatfox_confidence", is: ">", value: 0, verdict: "malicious" }],
    detection: "ThreatFox confidence {threatfox_confidence}%",
  },
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
  normalize: normalizeThreatFoxAnswer,
};
