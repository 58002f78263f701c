/**
 * GreyNoise Community: `GET /v3/community/<ip>` (key in the `key` header); 404 means the address
 * was not observed scanning. Only IPv4: the Community API has no IPv6.
 */
import type { Connector } from "../types.ts";
import { normalizeGreyNoise } from "./normalize.ts";

const ip = (type: string) => ({ superType: "OBSERVABLE", type });

export const greynoise: Connector = {
  id: "greynoise",
  vendor: "GreyNoise Community",
  description: "Is an IP internet background noise (scanners) or a known benign service (RIOT)?",
  supportedTypes: [ip("IPV4")],
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://api.greynoise.io",
  // The Community API is deliberately low-volume: 50 lookups a day.
  quota: { perDay: 50, source: "https://docs.greynoise.io/docs/using-the-greynoise-community-api" },
  ttlSeconds: 24 * 3600, // scanner activity changes daily
  disclosure: "third_party",
  keyPage: "https://viz.greynoise.io/account/api-key",
  vendorPages: [{ url: "https://viz.greynoise.io/ip/{value}", types: ["IPV4"] }],
  // GreyNoise classifies; "unknown" (seen scanning, intent unclear) stays unknown.
  verdict: {
    cases: [
      { attribute: "greynoise_classification", is: "=", value: "malicious", verdict: "malicious" },
      { attribute: "greynoise_classification", is: "=", value: "suspicious", verdict: "suspicious" },
      { attribute: "greynoise_classification", is: "=", value: "benign", verdict: "clean" },
    ],
  },
  async fetch(subject, credentials, { http }) {
    const res = await http.get(`/v3/community/${encodeURIComponent(subject.value)}`, {
      headers: { key: credentials.api_key ?? "" },
    });
    return res.status === 404 ? null : res.json();
  },
  normalize: normalizeGreyNoise,
};
