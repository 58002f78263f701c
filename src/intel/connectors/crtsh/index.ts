/**
 * crt.sh (Sectigo's certificate transparency search): the certificates logged for a domain and the
 * other names they carry. `GET /?q=<name>&output=json` answers a JSON list (an empty one when
 * nothing is logged); the list is wrapped in an object, as the framework takes objects only.
 */
import type { Connector } from "../types.ts";
import { normalizeCrtsh } from "./normalize.ts";

export const crtsh: Connector = {
  id: "crtsh",
  vendor: "crt.sh (certificate transparency)",
  description:
    "Certificates logged for a domain (issuers, validity) and the sibling names they carry; no key.",
  supportedTypes: ["DOMAIN", "HOSTNAME"].map((type) => ({ superType: "OBSERVABLE", type })),
  credentialFields: [],
  defaultBaseUrl: "https://crt.sh",
  ttlSeconds: 24 * 3600,
  disclosure: "third_party",
  keyPage: null,
  vendorPages: [{ url: "https://crt.sh/?q={value}" }],
  verdict: null, // a certificate says who asked for a name, not whether it is harmful
  async fetch(subject, _credentials, ctx) {
    const name = subject.value.trim().toLowerCase().replace(/\.$/, "");
    const res = await ctx.http.get("/", { query: { q: name, output: "json", deduplicate: "Y" } });
    if (res.status === 404) return null;
    const certificates = res.json();
    if (Array.isArray(certificates) && certificates.length === 0) return null;
    return { certificates };
  },
  normalize: normalizeCrtsh,
};
