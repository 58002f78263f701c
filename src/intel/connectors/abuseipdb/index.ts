/**
 * AbuseIPDB: `GET /api/v2/check` for an IP (key in the `Key` header), 90 days of reports with
 * their details (`verbose`); its confidence score is the panel's verdict (50 % and more: malicious).
 */
import type { Connector } from "../types.ts";
import { normalizeAbuseIpdb } from "./normalize.ts";

const ip = (type: string) => ({ superType: "OBSERVABLE", type });

export const abuseipdb: Connector = {
  id: "abuseipdb",
  vendor: "AbuseIPDB",
  description: "Community abuse reports and a confidence score for IP addresses.",
  supportedTypes: [ip("IPV4"), ip("IPV6")],
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://api.abuseipdb.com",
  // The free (Individual) plan: 1,000 checks a day.
  quota: { perDay: 1000, source: "https://docs.abuseipdb.com/#rate-limiting" },
  ttlSeconds: 24 * 3600, // abuse reports arrive daily
  disclosure: "third_party",
  keyPage: "https://www.abuseipdb.com/account/api",
  vendorPages: [{ url: "https://www.abuseipdb.com/check/{value}", types: ["IPV4", "IPV6"] }],
  verdict: {
    when: [{ attribute: "abuse_confidence_score", is: "present" }],
    cases: [
      { attribute: "abuse_confidence_score", is: ">=", value: 50, verdict: "malicious" },
      { attribute: "abuse_confidence_score", is: ">", value: 0, verdict: "suspicious" },
    ],
    otherwise: "clean",
    detection: "AbuseIPDB confidence {abuse_confidence_score}%",
  },
  async fetch(subject, credentials, { http }) {
    const res = await http.get("/api/v2/check", {
      query: { ipAddress: subject.value, maxAgeInDays: 90, verbose: "" },
      headers: { Key: credentials.api_key ?? "" },
    });
    return res.status === 404 ? null : res.json();
  },
  normalize: normalizeAbuseIpdb,
};
