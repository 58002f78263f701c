/**
 * IP reputation: GreyNoise Community (is this IP scanning the internet, or a known benign
 * service?) and AbuseIPDB (community abuse reports and a confidence score).
 */

import { facts } from "./facts.ts";
import { type Connector, type EventDraft, type Fragment, rootRef, type Subject } from "./types.ts";

const ip = (type: string) => ({ superType: "OBSERVABLE", type });

// ── GreyNoise Community: GET /v3/community/{ip}, header `key`; 404 = not observed ──

interface GreyNoiseAnswer {
  noise?: boolean;
  riot?: boolean;
  classification?: string;
  name?: string;
  link?: string;
  last_seen?: string;
}

export function normalizeGreyNoise(raw: unknown, subject: Subject): Fragment {
  const r = (raw ?? {}) as GreyNoiseAnswer;
  const attributes: Record<string, string> = {
    greynoise_noise: String(r.noise ?? false),
    greynoise_riot: String(r.riot ?? false),
  };
  if (r.classification) {
    attributes.greynoise_classification = r.classification;
    attributes.is_malicious = String(r.classification === "malicious");
  }
  if (r.name && r.name !== "unknown") attributes.operator = r.name;
  const events: EventDraft[] = [];
  if (r.noise && r.last_seen) {
    const seen = `${r.last_seen}T00:00:00Z`;
    events.push({
      type: "ATTACK",
      name: "Seen scanning the internet (GreyNoise)",
      firstSeen: seen,
      lastSeen: seen,
      involved: rootRef(subject),
    });
  }
  return {
    entities: [{ ...rootRef(subject), attributes, ...(r.link ? { sourceUrl: r.link } : {}) }],
    relations: [],
    events,
  };
}

export const greynoise: Connector = {
  id: "greynoise",
  vendor: "GreyNoise Community",
  description: "Is an IP internet background noise (scanners) or a known benign service (RIOT)?",
  supportedTypes: [ip("IPV4")],
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://api.greynoise.io",
  async fetch(subject, credentials, { http }) {
    const res = await http.get(`/v3/community/${encodeURIComponent(subject.value)}`, {
      headers: { key: credentials.api_key ?? "" },
    });
    return res.status === 404 ? null : res.json();
  },
  normalize: normalizeGreyNoise,
};

// ── AbuseIPDB: GET /api/v2/check?ipAddress=…&maxAgeInDays=90&verbose, header `Key` ──

interface AbuseIpdbAnswer {
  data?: {
    abuseConfidenceScore?: number;
    countryCode?: string;
    usageType?: string;
    isp?: string;
    domain?: string;
    hostnames?: string[];
    isTor?: boolean;
    isWhitelisted?: boolean;
    totalReports?: number;
    numDistinctUsers?: number;
    lastReportedAt?: string | null;
    reports?: Array<{ reportedAt?: string; comment?: string; categories?: number[] }>;
  };
}

/** AbuseIPDB's report categories (its documented numbering). */
const CATEGORIES: Record<number, string> = {
  3: "fraud orders",
  4: "DDoS attack",
  5: "FTP brute-force",
  6: "ping of death",
  7: "phishing",
  9: "open proxy",
  10: "web spam",
  11: "email spam",
  14: "port scan",
  15: "hacking",
  16: "SQL injection",
  17: "spoofing",
  18: "brute-force",
  19: "bad web bot",
  20: "exploited host",
  21: "web app attack",
  22: "SSH",
  23: "IoT targeted",
};

export function normalizeAbuseIpdb(raw: unknown, subject: Subject): Fragment {
  const d = (raw as AbuseIpdbAnswer | null)?.data ?? {};
  const root = rootRef(subject);
  const attributes = facts({
    abuse_confidence_score: d.abuseConfidenceScore,
    is_malicious: d.abuseConfidenceScore === undefined ? undefined : d.abuseConfidenceScore >= 50,
    country: d.countryCode,
    usage_type: d.usageType,
    isp: d.isp,
    is_tor: d.isTor,
    total_reports: d.totalReports,
    distinct_reporters: d.numDistinctUsers,
  });
  const entities: Fragment["entities"] = [{ ...root, attributes }];
  const relations: Fragment["relations"] = [];
  if (d.domain) {
    const domain = { superType: "OBSERVABLE", type: "DOMAIN", name: d.domain };
    entities.push(domain);
    relations.push({ name: "belongs to", from: root, to: domain });
  }
  for (const h of d.hostnames ?? []) {
    const host = { superType: "OBSERVABLE", type: "HOSTNAME", name: h };
    entities.push(host);
    relations.push({ name: "resolves", from: host, to: root });
  }
  const events: EventDraft[] = [];
  for (const report of d.reports ?? []) {
    if (!report.reportedAt) continue;
    const kinds = (report.categories ?? []).map((c) => CATEGORIES[c] ?? `category ${c}`);
    events.push({
      type: "ALERT",
      name: `Reported to AbuseIPDB: ${kinds.join(", ") || "abuse"}`,
      firstSeen: report.reportedAt,
      lastSeen: report.reportedAt,
      involved: root,
      attributes: report.comment ? { comment: report.comment.slice(0, 500) } : {},
    });
  }
  return { entities, relations, events };
}

export const abuseipdb: Connector = {
  id: "abuseipdb",
  vendor: "AbuseIPDB",
  description: "Community abuse reports and a confidence score for IP addresses.",
  supportedTypes: [ip("IPV4"), ip("IPV6")],
  credentialFields: ["api_key"],
  defaultBaseUrl: "https://api.abuseipdb.com",
  async fetch(subject, credentials, { http }) {
    const res = await http.get("/api/v2/check", {
      query: { ipAddress: subject.value, maxAgeInDays: 90, verbose: "" },
      headers: { Key: credentials.api_key ?? "" },
    });
    return res.status === 404 ? null : res.json();
  },
  normalize: normalizeAbuseIpdb,
};
