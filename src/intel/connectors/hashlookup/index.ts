/**
 * CIRCL hashlookup: `GET /lookup/<md5|sha1|sha256>/<hash>`, no key. 404 is "not a known file" and
 * 400 (a malformed hash) is read the same way; a known file is a good one unless flagged.
 */
import type { Connector } from "../types.ts";
import { normalizeHashlookup } from "./normalize.ts";

const ROUTES: Record<string, string> = { MD5: "md5", SHA1: "sha1", SHA256: "sha256" };

export const hashlookup: Connector = {
  id: "hashlookup",
  vendor: "CIRCL hashlookup",
  description: "Known-good file hashes (NSRL and software distributions); no key needed.",
  supportedTypes: ["MD5", "SHA1", "SHA256"].map((type) => ({ superType: "OBSERVABLE", type })),
  credentialFields: [],
  defaultBaseUrl: "https://hashlookup.circl.lu",
  ttlSeconds: 7 * 24 * 3600, // the known-files database changes slowly; only the hash is sent, still to a third party
  disclosure: "third_party",
  keyPage: null,
  vendorPages: [
    { url: "https://hashlookup.circl.lu/lookup/{type}/{value}", types: ["MD5", "SHA1", "SHA256"] },
  ],
  // A known file is a good one unless a source flagged it; an unknown hash says nothing.
  verdict: {
    when: [{ attribute: "known_file", is: "=", value: "true" }],
    cases: [{ attribute: "known_malicious", is: "present", verdict: "malicious" }],
    otherwise: "clean",
  },
  async fetch(subject, _credentials, ctx) {
    const route = ROUTES[subject.type];
    if (!route) return null;
    const res = await ctx.http.get(`/lookup/${route}/${encodeURIComponent(subject.value.toLowerCase())}`);
    // 400 is its answer for a malformed hash; for us that is "not known" as well.
    if (res.status === 404 || res.status === 400) return null;
    return res.json();
  },
  normalize: normalizeHashlookup,
};
