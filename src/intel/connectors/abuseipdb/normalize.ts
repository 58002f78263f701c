/**
 * AbuseIPDB check answer → graph: the IP with its score, ISP and usage, and its abuse reports as
 * events named by category.
 */
import { facts } from "../facts.ts";
import { type EventDraft, type Fragment, rootRef, type Subject } from "../types.ts";

const _ip = (type: string) => ({ superType: "OBSERVABLE", type });

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
