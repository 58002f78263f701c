/**
 * RDAP registration data (RFC 9083) through IANA's bootstrap (RFC 9224): a domain's registrar,
 * dates, status and public registrant; an address's network name, owner and range. The subject is
 * sent to the registry's RDAP server, so it is gated like any public vendor. INTEL_VENDOR_URL_RDAP
 * points at another bootstrap (a mirror, a test double); the registries' servers come from it.
 */
import ipaddr from "ipaddr.js";
import { createVendorHttp } from "../http.ts";
import type { Connector, FetchContext, Subject } from "../types.ts";
import { serverForAddress, serverForDomain } from "./bootstrap.ts";
import { normalizeRdap } from "./normalize.ts";

async function query(
  subject: Subject,
  ctx: FetchContext,
): Promise<{ server: string; path: string } | undefined> {
  const value = subject.value.trim().toLowerCase().replace(/\.$/, "");
  if (subject.type === "DOMAIN") {
    const server = await serverForDomain(value, ctx);
    return server ? { server, path: `/domain/${encodeURIComponent(value)}` } : undefined;
  }
  if (!ipaddr.isValid(value)) return undefined;
  const server = await serverForAddress(value, ctx);
  return server ? { server, path: `/ip/${encodeURIComponent(ipaddr.parse(value).toString())}` } : undefined;
}

export const rdap: Connector = {
  id: "rdap",
  vendor: "RDAP (registries, via IANA's bootstrap)",
  description:
    "Registration data: a domain's registrar, creation and expiry dates, status and public registrant; an IP's network name, owner and range. No key; the value is sent to the registry.",
  supportedTypes: ["DOMAIN", "IPV4", "IPV6"].map((type) => ({ superType: "OBSERVABLE", type })),
  credentialFields: [],
  defaultBaseUrl: "https://data.iana.org",
  ttlSeconds: 7 * 24 * 3600, // registrations change rarely
  disclosure: "third_party",
  keyPage: null,
  vendorPages: [{ url: "https://client.rdap.org/?object={value}" }],
  verdict: null, // a registration is a fact, not a verdict (the card reads its age)
  async fetch(subject, _credentials, ctx) {
    const target = await query(subject, ctx);
    if (!target) return null;
    const http = createVendorHttp({
      baseUrl: target.server,
      timeoutMs: 15_000,
      retries: 1,
      maxBackoffMs: 2000,
      signal: ctx.signal,
    });
    const res = await http.get(target.path, {
      headers: { accept: "application/rdap+json, application/json" },
    });
    if (res.status === 404) return null;
    return res.json();
  },
  normalize: normalizeRdap,
};
