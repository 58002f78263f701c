/**
 * Public blocklists (Tor exits, Feodo Tracker, SSLBL, Spamhaus DROP/EDROP, OpenPhish) matched
 * against the local copies the workers keep (lists.ts, domain/feeds.ts): nothing is sent anywhere,
 * so any marking may use it. An IPv4 address also matches the DROP ranges holding it.
 */
import { ipv4Number } from "../feed.ts";
import { type Connector, type Subject, VendorError } from "../types.ts";
import { BLOCKLISTS } from "./lists.ts";
import { normalizeBlocklists } from "./normalize.ts";

function lookFor(subject: Subject): { kinds: string[]; values: string[]; ipv4?: number } {
  const v = subject.value.trim();
  if (subject.type === "IPV4") {
    const n = ipv4Number(v);
    return { kinds: ["IPV4"], values: [v], ...(n === undefined ? {} : { ipv4: n }) };
  }
  return { kinds: [subject.type], values: [v] };
}

const ids = new Set(BLOCKLISTS.map((l) => l.id));

export const blocklists: Connector = {
  id: "blocklists",
  vendor: "Public blocklists (offline)",
  description:
    "Tor exit nodes, abuse.ch Feodo Tracker and SSLBL botnet C2s, Spamhaus DROP/EDROP, OpenPhish: local copies refreshed by the workers; nothing sent out.",
  supportedTypes: ["IPV4", "URL"].map((type) => ({ superType: "OBSERVABLE", type })),
  credentialFields: [],
  defaultBaseUrl: "https://feodotracker.abuse.ch",
  ttlSeconds: 6 * 3600, // the copies are refreshed every INTEL_FEEDS_REFRESH_MINUTES (6 h by default)
  disclosure: "local",
  keyPage: null,
  vendorPages: [],
  verdict: {
    cases: [
      { attribute: "blocklisted", is: "present", verdict: "malicious" },
      { attribute: "tor_exit", is: "=", value: "true", verdict: "suspicious" },
    ],
    detection: "Listed on {blocklisted}",
  },
  async fetch(subject, _credentials, ctx) {
    if (!ctx.feeds) throw new VendorError("not_configured", "no local feed copies in this process");
    const matches = (await ctx.feeds.find("", lookFor(subject))).filter((m) => ids.has(m.feed));
    return matches.length ? { matches } : null;
  },
  normalize: normalizeBlocklists,
};
