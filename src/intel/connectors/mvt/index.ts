/**
 * Mercenary spyware indicators from the Mobile Verification Toolkit's index (Amnesty Tech, Citizen
 * Lab and others), matched against the local copies the workers keep (domain/feeds.ts): nothing
 * is sent anywhere, so a RED subject is checked too. A host name also matches a listed parent domain.
 */
import { getDomain } from "tldts";
import type { Connector, Subject } from "../types.ts";
import { VendorError } from "../types.ts";
import { normalizeMvt } from "./normalize.ts";

/** Which kinds of indicator a subject type is matched against, and the values to look for. */
function lookFor(subject: Subject): { kinds: string[]; values: string[] } {
  const v = subject.value.trim();
  switch (subject.type) {
    case "DOMAIN":
    case "HOSTNAME": {
      const host = v.toLowerCase().replace(/\.$/, "");
      const parents: string[] = [host];
      const registered = getDomain(host) ?? host;
      for (let h = host; h !== registered && h.includes("."); ) {
        h = h.slice(h.indexOf(".") + 1);
        parents.push(h);
      }
      return { kinds: ["DOMAIN"], values: parents };
    }
    case "URL": {
      let host = "";
      try {
        host = new URL(v).hostname.toLowerCase();
      } catch {}
      return { kinds: ["URL", "DOMAIN"], values: host ? [v, host] : [v] };
    }
    case "IPV4":
    case "NAMESPACE":
    case "PROCESS":
      return { kinds: [subject.type], values: [v] };
    default:
      return { kinds: [subject.type], values: [v.toLowerCase()] };
  }
}

export const mvt: Connector = {
  id: "mvt",
  vendor: "MVT indicators (offline)",
  description:
    "Mercenary spyware indicators (NSO Pegasus, Predator, RCS Lab, QuaDream…) from the Mobile Verification Toolkit's index, matched locally; nothing sent out.",
  supportedTypes: [
    "DOMAIN",
    "HOSTNAME",
    "IPV4",
    "IPV6",
    "URL",
    "EMAIL",
    "MD5",
    "SHA1",
    "SHA256",
    "NAMESPACE",
    "PROCESS",
  ].map((type) => ({ superType: "OBSERVABLE", type })),
  credentialFields: [],
  defaultBaseUrl: "https://github.com/mvt-project/mvt-indicators",
  ttlSeconds: 6 * 3600, // the copies are refreshed every INTEL_FEEDS_REFRESH_MINUTES (6 h by default)
  disclosure: "local",
  keyPage: null,
  vendorPages: [],
  verdict: {
    cases: [{ attribute: "spyware", is: "present", verdict: "malicious" }],
    detection: "Spyware {spyware}",
  },
  async fetch(subject, _credentials, ctx) {
    if (!ctx.feeds) throw new VendorError("not_configured", "no local feed copies in this process");
    const matches = await ctx.feeds.find("mvt:", lookFor(subject));
    return matches.length ? { matches } : null;
  },
  normalize: normalizeMvt,
};
