/**
 * AlienVault OTX DirectConnect v1: an indicator's `general` section (plus `passive_dns` for
 * addresses and names), or a pulse search for a threat actor. Key in `X-OTX-API-KEY`.
 */
import type { Connector } from "../types.ts";
import { KINDS, normalizeOtx, type OtxRaw } from "./normalize.ts";

const WITH_PASSIVE_DNS = new Set(["IPV4", "IPV6", "DOMAIN", "HOSTNAME"]);

export const otx: Connector = {
  id: "otx",
  vendor: "AlienVault OTX",
  description:
    "Community pulses, malware families, adversaries and passive DNS; threat actors by pulse search.",
  supportedTypes: [
    ...Object.keys(KINDS).map((type) => ({ superType: "OBSERVABLE", type })),
    { superType: "ACTOR", type: "THREAT_ACTOR" },
  ],
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://otx.alienvault.com",
  ttlSeconds: 24 * 3600, // pulses (reputation) change daily
  disclosure: "third_party",
  keyPage: "https://otx.alienvault.com/api",
  vendorPages: [{ url: "https://otx.alienvault.com/browse/global/pulses?q={value}" }],
  // A negative reputation is a warning; pulses alone (anyone may write one) are no verdict.
  verdict: { cases: [{ attribute: "otx_reputation", is: "<", value: 0, verdict: "suspicious" }] },
  async fetch(subject, credentials, { http }) {
    const headers = { "X-OTX-API-KEY": credentials.api_key ?? "" };
    if (subject.type === "THREAT_ACTOR") {
      const res = await http.get("/api/v1/search/pulses", {
        query: { q: subject.value.trim(), limit: 20 },
        headers,
      });
      const body = res.status === 404 ? null : (res.json() as { results?: unknown[] } | null);
      return body?.results?.length ? body : null;
    }
    const kind = KINDS[subject.type];
    if (!kind) return null;
    const base = `/api/v1/indicators/${kind}/${encodeURIComponent(subject.value)}`;
    const general = await http.get(`${base}/general`, { headers });
    if (general.status === 404) return null;
    const raw: OtxRaw = { general: general.json() as OtxRaw["general"] };
    if (WITH_PASSIVE_DNS.has(subject.type)) {
      const pdns = await http.get(`${base}/passive_dns`, { headers });
      if (pdns.status !== 404) raw.passive_dns = pdns.json() as OtxRaw["passive_dns"];
    }
    return raw;
  },
  normalize: normalizeOtx,
};
