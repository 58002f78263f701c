/**
 * Every setting of the intel service, each with its default, check and description (docs/configuration.md
 * is checked against it), plus the per-vendor families (INTEL_VENDOR_URL_/TTL_/QUOTA_<ID>) read by prefix.
 */
import { withDerivedDefaults } from "../common/config.ts";
import {
  ConfigError,
  flag,
  httpUrl,
  integer,
  oneOf,
  optionalText,
  readSettings,
  type Setting,
  type SettingNames,
  setting,
  text,
} from "../common/settings.ts";
import { MARKINGS, type Marking, parseMarking } from "./model/markings.ts";

const LEVELS = MARKINGS.join(", ");

function marking(names: SettingNames, defaultValue: Marking, describe: string): Setting<Marking> {
  return setting(names, defaultValue, describe, (raw) => {
    const level = parseMarking(raw);
    if (!level) throw new Error(`must be one of ${LEVELS}, got "${raw}"`);
    return level;
  });
}

/** `vendor:LEVEL,…`: the most restricted level each named connector may receive. */
function allowances(names: SettingNames, describe: string): Setting<Record<string, Marking>> {
  const parse = (raw: string) => {
    const out: Record<string, Marking> = {};
    for (const item of raw
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean)) {
      const [vendor, level] = item.split(":").map((v) => v.trim());
      const parsed = level ? parseMarking(level) : undefined;
      if (!vendor || !/^[a-z0-9_]+$/.test(vendor) || !parsed)
        throw new Error(`must be vendor:LEVEL pairs (LEVEL one of ${LEVELS}), got "${item}"`);
      out[vendor] = parsed;
    }
    return out;
  };
  return { ...setting(names, {}, describe, parse), documentedDefault: "none" };
}

/** Settings of the intel service (docs/configuration.md lists them). */
export const intelSettings = {
  port: integer("INTEL_PORT", 9080, "Port of the intel service.", { min: 0, max: 65535 }),
  databaseUrl: {
    ...text(
      ["INTEL_DATABASE_URL", "DATABASE_URL"],
      "sqlite:./data/intel.db",
      "sqlite:<path> (embedded, WAL) or postgres://… (scale-out: several workers).",
    ),
    documentedDefault: "sqlite:<LOUPE_DATA_DIR>/intel.db",
  },
  baseUrl: {
    ...httpUrl(
      ["INTEL_BASE_URL", "BASE_URL"],
      "http://127.0.0.1:9080",
      "Public URL of the intel service (links, admin panel).",
    ),
    documentedDefault: "http://127.0.0.1:<INTEL_PORT>",
  },
  adminPath: optionalText(
    ["INTEL_ADMIN_PATH", "ADMIN_PATH"],
    "Path of the admin panel; a random 32-hex path is made and kept when unset.",
  ),
  secretKey: optionalText(
    ["INTEL_SECRET_KEY", "SECRET_KEY"],
    "Secret that signs admin sessions; generated and kept in the database when unset.",
  ),
  adminSessionHours: integer(
    ["INTEL_ADMIN_SESSION_HOURS", "ADMIN_SESSION_HOURS"],
    12,
    "How long an admin panel login lasts.",
    {
      min: 1,
      max: 24 * 90,
    },
  ),
  adminLoginFailuresPerUser: integer(
    ["INTEL_ADMIN_LOGIN_FAILURES_PER_USER", "ADMIN_LOGIN_FAILURES_PER_USER"],
    5,
    "Failed admin logins for one username before it is locked out for INTEL_ADMIN_LOGIN_LOCKOUT_SECONDS.",
    { min: 1 },
  ),
  adminLoginFailuresPerIp: integer(
    ["INTEL_ADMIN_LOGIN_FAILURES_PER_IP", "ADMIN_LOGIN_FAILURES_PER_IP"],
    20,
    "Failed admin logins from one client address before it is locked out.",
    { min: 1 },
  ),
  adminLoginLockoutSeconds: integer(
    ["INTEL_ADMIN_LOGIN_LOCKOUT_SECONDS", "ADMIN_LOGIN_LOCKOUT_SECONDS"],
    900,
    "How long failed logins are remembered and a lockout lasts.",
    { min: 1 },
  ),
  vendorTimeoutMs: integer(
    "INTEL_VENDOR_TIMEOUT_MS",
    20_000,
    "Time limit of one vendor call (per attempt).",
    {
      min: 100,
    },
  ),
  vendorRetries: integer(
    "INTEL_VENDOR_RETRIES",
    2,
    "Retries of a vendor call after a 429, a 5xx or a network error.",
    {
      min: 0,
      max: 10,
    },
  ),
  vendorMaxBackoffMs: integer(
    "INTEL_VENDOR_MAX_BACKOFF_MS",
    10_000,
    "Longest wait before retrying a vendor.",
    {
      min: 0,
    },
  ),
  vendorConcurrency: integer(
    "INTEL_VENDOR_CONCURRENCY",
    4,
    "Calls in flight to one vendor from one worker.",
    {
      min: 1,
      max: 256,
    },
  ),
  failureCooldownMs: integer(
    "INTEL_FAILURE_COOLDOWN_MS",
    60_000,
    "After every vendor failed for a subject, how long 502 is answered before a new lookup is tried.",
    { min: 0 },
  ),
  rawAnswerMaxBytes: integer(
    "INTEL_RAW_ANSWER_MAX_BYTES",
    262_144,
    "Each vendor's raw answer to a request is kept (redacted) up to this many bytes for admins to read in the panel (0 = not kept).",
    { min: 0, max: 16 * 1024 * 1024 },
  ),
  answerMaxEntities: integer(
    "INTEL_ANSWER_MAX_ENTITIES",
    10_000,
    "Entities kept from one vendor's answer (the subject first, then in the answer's order); the rest are dropped with their relations and events, and sources.<vendor>.capped says so.",
    { min: 1, max: 1_000_000 },
  ),
  resultMaxEntities: integer(
    "INTEL_RESULT_MAX_ENTITIES",
    50_000,
    "Entities in one result document or export (the root first, then the nearest); `capped: true` in the result says entities were left out.",
    { min: 1, max: 1_000_000 },
  ),
  renderedCacheBytes: integer(
    "INTEL_RENDERED_CACHE_BYTES",
    32 * 1024 * 1024,
    "Bytes of rendered result documents and exports kept in memory per process, reused while the graph does not change (least recently used dropped first; 0 = none kept).",
    { min: 0, max: 16 * 1024 * 1024 * 1024 },
  ),
  renderProcesses: integer(
    "INTEL_RENDER_PROCESSES",
    2,
    "Processes that read and render stored results and exports off the event loop; each ends after 30 s without work.",
    { min: 1, max: 64 },
  ),
  retryAfterSeconds: integer("INTEL_RETRY_AFTER", 2, "Retry-After (seconds) sent with 201 answers.", {
    min: 1,
    max: 3600,
  }),
  readCacheEntries: integer(
    "INTEL_READ_CACHE_ENTRIES",
    10_000,
    "Reads of the answer path (API keys, a subject's lookup and requests under way) kept in memory until anything is committed to the database (0 = read every time).",
    { min: 0, max: 10_000_000 },
  ),
  workerConcurrency: integer("INTEL_WORKER_CONCURRENCY", 8, "Lookups one worker runs at once.", {
    min: 1,
    max: 256,
  }),
  bulkMax: integer(
    ["INTEL_BULK_MAX", "BULK_MAX"],
    1000,
    "Subjects in one bulk ask (POST /api/requests/); more: 413.",
    {
      min: 1,
      max: 100_000,
    },
  ),
  bulkMaxBodyBytes: integer(
    ["INTEL_BULK_MAX_BODY_BYTES", "BULK_MAX_BODY_BYTES"],
    4 * 1024 * 1024,
    "Largest body of a bulk ask, in bytes; larger: 413.",
    { min: 1024 },
  ),
  batchResultsPageMax: integer(
    ["INTEL_BATCH_RESULTS_PAGE_MAX", "BATCH_RESULTS_PAGE_MAX"],
    50,
    "Items per page of GET /api/batches/<id>/?results=1 (each carries its result document).",
    { min: 1, max: 1000 },
  ),
  webhookAllowPrivate: flag(
    ["INTEL_WEBHOOK_ALLOW_PRIVATE", "WEBHOOK_ALLOW_PRIVATE"],
    false,
    "Let webhooks call loopback, private, link-local and other non-public addresses (tests, closed networks).",
  ),
  webhookTimeoutMs: integer(
    ["INTEL_WEBHOOK_TIMEOUT_MS", "WEBHOOK_TIMEOUT_MS"],
    10_000,
    "Time limit of one webhook call.",
    {
      min: 100,
      max: 300_000,
    },
  ),
  webhookMaxAttempts: integer(
    ["INTEL_WEBHOOK_MAX_ATTEMPTS", "WEBHOOK_MAX_ATTEMPTS"],
    8,
    "Calls of a webhook for one event before its delivery is marked failed.",
    { min: 1, max: 100 },
  ),
  webhookRetryBaseMs: integer(
    ["INTEL_WEBHOOK_RETRY_BASE_MS", "WEBHOOK_RETRY_BASE_MS"],
    30_000,
    "Wait before the first retry of a failed webhook call; doubled after each failure.",
    { min: 10 },
  ),
  webhookRetryMaxMs: integer(
    ["INTEL_WEBHOOK_RETRY_MAX_MS", "WEBHOOK_RETRY_MAX_MS"],
    3_600_000,
    "Longest wait between two webhook calls.",
    {
      min: 10,
    },
  ),
  webhookPollMs: integer(
    ["INTEL_WEBHOOK_POLL_MS", "WEBHOOK_POLL_MS"],
    1000,
    "How often a worker looks for webhook calls to make.",
    {
      min: 10,
      max: 60_000,
    },
  ),
  connectors: text(
    "INTEL_CONNECTORS",
    "all",
    "Connectors to use: all, or a comma-separated list of ids (virustotal,hashlookup,…).",
  ),
  databaseWaitMs: integer(
    ["INTEL_DATABASE_WAIT_MS", "DATABASE_WAIT_MS"],
    60_000,
    "At start, how long to wait for a database that is not reachable yet (restarting) before giving up.",
    { min: 0 },
  ),
  jobLeaseMs: integer(
    "INTEL_JOB_LEASE_MS",
    120_000,
    "A job whose worker has not finished by then is retried.",
    {
      min: 1000,
    },
  ),
  quotaPolicy: oneOf(
    "INTEL_QUOTA_POLICY",
    "wait",
    "When a vendor's quota is used up: wait (up to INTEL_QUOTA_MAX_WAIT_SECONDS) for a slot, or skip the vendor (outcome quota_exhausted).",
    ["wait", "skip"],
  ),
  quotaMaxWaitSeconds: integer(
    "INTEL_QUOTA_MAX_WAIT_SECONDS",
    120,
    "Longest a lookup waits for a vendor's quota under the wait policy; past it the vendor is skipped (quota_exhausted).",
    { min: 0, max: 3600 },
  ),
  // Bounds on what one API key can make the service do and store (docs/security.md).
  keyRateLimitPerMinute: integer(
    "INTEL_KEY_RATE_LIMIT_PER_MINUTE",
    300,
    "Requests per minute with one API key on /api/ routes (0 = unlimited). Past it: 429 rate_limited.",
    { min: 0 },
  ),
  retentionDays: integer(
    "INTEL_RETENTION_DAYS",
    90,
    "Subjects nobody asked about for this many days are swept, with what only they reached (0 = keep all).",
    { min: 0 },
  ),
  defaultTlp: marking("INTEL_DEFAULT_TLP", "CLEAR", "TLP of a request that names none."),
  defaultPap: marking("INTEL_DEFAULT_PAP", "CLEAR", "PAP of a request that names none."),
  tlpAllow: allowances(
    "INTEL_TLP_ALLOW",
    "Third-party connectors allowed to receive subjects up to a TLP level, e.g. virustotal:AMBER.",
  ),
  papAllow: allowances(
    "INTEL_PAP_ALLOW",
    "Third-party connectors allowed to receive subjects up to a PAP level, e.g. virustotal:AMBER.",
  ),
  retentionSweepMinutes: integer(
    "INTEL_RETENTION_SWEEP_MINUTES",
    360,
    "How often a worker runs the retention sweep.",
    { min: 1 },
  ),
  // Local copies of public blocklists and spyware indicators (docs/connectors.md, "Local feeds").
  feedsRefreshMinutes: integer(
    "INTEL_FEEDS_REFRESH_MINUTES",
    360,
    "How often a worker downloads each local feed again (conditional GET); 0 = never (an offline install keeps the copies it has).",
    { min: 0 },
  ),
  feedTimeoutMs: integer("INTEL_FEED_TIMEOUT_MS", 60_000, "Time limit of one feed download.", { min: 100 }),
  feedMaxBytes: integer(
    "INTEL_FEED_MAX_BYTES",
    64 * 1024 * 1024,
    "Largest feed file downloaded; a larger one fails that refresh (the old copy stays).",
    { min: 1024 },
  ),
  mvtIndexUrl: httpUrl(
    "INTEL_MVT_INDEX_URL",
    "https://raw.githubusercontent.com/mvt-project/mvt-indicators/main/indicators.yaml",
    "The Mobile Verification Toolkit's indicator index (indicators.yaml), or a mirror of it.",
  ),
  mvtFilesBaseUrl: httpUrl(
    "INTEL_MVT_FILES_BASE_URL",
    "https://raw.githubusercontent.com",
    "Base URL of the files the MVT index names on GitHub (<base>/<owner>/<repo>/<branch>/<path>), or of a mirror.",
  ),
  torExitsUrl: httpUrl(
    "INTEL_BLOCKLIST_TOR_EXITS_URL",
    "https://check.torproject.org/torbulkexitlist",
    "The Tor exit list (one address a line).",
  ),
  feodoUrl: httpUrl(
    "INTEL_BLOCKLIST_FEODO_URL",
    "https://feodotracker.abuse.ch/downloads/ipblocklist.csv",
    "abuse.ch Feodo Tracker's botnet C2 IP blocklist (CSV).",
  ),
  sslblUrl: httpUrl(
    "INTEL_BLOCKLIST_SSLBL_URL",
    "https://sslbl.abuse.ch/blacklist/sslipblacklist.csv",
    "abuse.ch SSLBL's botnet C2 IP blacklist (CSV).",
  ),
  spamhausDropUrl: httpUrl(
    "INTEL_BLOCKLIST_SPAMHAUS_DROP_URL",
    "https://www.spamhaus.org/drop/drop.txt",
    "Spamhaus DROP (text: CIDR ; SBL id).",
  ),
  spamhausEdropUrl: httpUrl(
    "INTEL_BLOCKLIST_SPAMHAUS_EDROP_URL",
    "https://www.spamhaus.org/drop/edrop.txt",
    "Spamhaus EDROP (text: CIDR ; SBL id).",
  ),
  openphishUrl: httpUrl(
    "INTEL_BLOCKLIST_OPENPHISH_URL",
    "https://openphish.com/feed.txt",
    "OpenPhish's community feed (one URL a line).",
  ),
  // Files analyses kept by intel (docs/api.md, "Files analyses").
  filesUrl: {
    env: "FILES_URL",
    aliases: [],
    defaultValue: "http://127.0.0.1:8000",
    describe:
      "The files service: `./loupe analyze` sends files to it, and so does intel's POST /api/analyses/ (none: analyses are off).",
    documentedDefault: "http://127.0.0.1:<FILES_PORT>",
    parse: filesUrl,
  } as Setting<string | null>,
  analysisMaxBytes: integer(
    "INTEL_ANALYSIS_MAX_BYTES",
    100_000_000,
    "Largest file POST /api/analyses/ accepts; larger: 413 file_too_large.",
    { min: 1 },
  ),
  analysisMaxFieldBytes: integer(
    "INTEL_ANALYSIS_MAX_FIELD_BYTES",
    1_048_576,
    "Largest text field of POST /api/analyses/ (YARA rules, password); larger: 413 field_too_large.",
    { min: 1024 },
  ),
  analysisCacheSeconds: integer(
    "INTEL_ANALYSIS_CACHE_SECONDS",
    86_400,
    "An upload of a file analysed within this many seconds, with the same rules and password presence, is answered from storage with its age (0 = always analysed).",
    { min: 0 },
  ),
  analysisConcurrency: integer(
    "INTEL_ANALYSIS_CONCURRENCY",
    2,
    "Files one intel API process sends to the files service at once; others wait their turn (pending).",
    { min: 1, max: 64 },
  ),
  analysisTimeoutMs: integer(
    "INTEL_ANALYSIS_TIMEOUT_MS",
    900_000,
    "Time allowed for the files service's answer on one file; past it the analysis fails (timeout).",
    { min: 1000 },
  ),
  analysisLeaseSeconds: integer(
    "INTEL_ANALYSIS_LEASE_SECONDS",
    120,
    "A pending analysis is held by the intel process that received its file for this long, renewed every third of it; past it (the process stopped) another process takes it over.",
    { min: 1, max: 86_400 },
  ),
  analysisProbeTimeoutMs: integer(
    "INTEL_ANALYSIS_PROBE_TIMEOUT_MS",
    5000,
    "Time allowed for the files service's health check made before an upload is accepted; past it: 503 files_service_unavailable.",
    { min: 100, max: 600_000 },
  ),
  analysisResultMaxBytes: integer(
    "INTEL_ANALYSIS_RESULT_MAX_BYTES",
    64 * 1024 * 1024,
    "Largest answer of the files service kept for one analysis; larger: the analysis fails (result_too_large).",
    { min: 1024 },
  ),
  analysisThumbnailSide: integer(
    "INTEL_ANALYSIS_THUMBNAIL_SIDE",
    256,
    "When the analysed file is an image, a PNG thumbnail fitting a box of this many pixels a side is asked of the files service and kept with the analysis (0 = none).",
    { min: 0, max: 1024 },
  ),
  analysisThumbnailMaxBytes: integer(
    "INTEL_ANALYSIS_THUMBNAIL_MAX_BYTES",
    262_144,
    "Largest thumbnail kept with an analysis; a larger one is dropped (the analysis is done without it).",
    { min: 1024 },
  ),
  analysisKeepFiles: flag(
    "INTEL_ANALYSIS_KEEP_FILES",
    false,
    "Keep each analysed file under LOUPE_DATA_DIR/analyses (off: a file is deleted once analysed).",
  ),
  analysisKeepMaxBytes: integer(
    "INTEL_ANALYSIS_KEEP_MAX_BYTES",
    20_000_000,
    "With INTEL_ANALYSIS_KEEP_FILES: a larger file is not kept.",
    { min: 0 },
  ),
  analysisKeepDays: integer(
    "INTEL_ANALYSIS_KEEP_DAYS",
    30,
    "With INTEL_ANALYSIS_KEEP_FILES: kept files older than this are deleted (the analysis stays).",
    { min: 1 },
  ),
  analysisDefaultTlp: marking(
    "INTEL_ANALYSIS_DEFAULT_TLP",
    "RED",
    "TLP of an uploaded file that names none: a victim's file is private until the analyst lowers it.",
  ),
  analysisDefaultPap: marking(
    "INTEL_ANALYSIS_DEFAULT_PAP",
    "RED",
    "PAP of an uploaded file that names none.",
  ),
  analysisEnrichMax: integer(
    "INTEL_ANALYSIS_ENRICH_MAX",
    100,
    "Indicators of one analysis asked of intel by POST /api/analyses/<id>/enrich/ (the first in the tree's order); the rest are counted as left out.",
    { min: 1, max: 10_000 },
  ),
};

/** FILES_URL as intel reads it: an http(s) URL, or `none` (analyses are off). */
function filesUrl(raw: string): string | null {
  if (raw.trim().toLowerCase() === "none") return null;
  return httpUrl("FILES_URL", "", "").parse(raw);
}

export type IntelConfig = ReturnType<typeof readIntelConfig>;

export function readIntelConfig(given: NodeJS.ProcessEnv = process.env) {
  const env = withDerivedDefaults(intelSettings, given);
  const settings = readSettings(intelSettings, env);
  return {
    ...settings,
    vendorUrls: vendorUrlOverrides(env),
    vendorQuotas: vendorQuotaOverrides(env),
    vendorTtlSeconds: vendorTtlOverrides(env),
  };
}

/** A vendor's quota as INTEL_VENDOR_QUOTA_<ID> sets it: each limit a count or null (none). */
export interface VendorQuotaOverride {
  perMinute: number | null;
  perDay: number | null;
  policy?: "wait" | "skip";
}

/**
 * INTEL_VENDOR_QUOTA_<ID>=<per minute>/<per day>[/wait|skip] replaces connector <id>'s quota
 * preset: each limit a whole number of calls, or `-` for none (`4/500`, `-/1000/skip`, `-/-`).
 */
export function vendorQuotaOverrides(env: NodeJS.ProcessEnv): Record<string, VendorQuotaOverride> {
  const out: Record<string, VendorQuotaOverride> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    const m = /^INTEL_VENDOR_QUOTA_([A-Z0-9_]+)$/.exec(key);
    if (!m?.[1] || value === undefined) continue;
    const parts = /^\s*(\d+|-)\s*\/\s*(\d+|-)\s*(?:\/\s*(wait|skip)\s*)?$/.exec(value);
    const limit = (part: string | undefined) => (part === undefined || part === "-" ? null : Number(part));
    const [perMinute, perDay] = [limit(parts?.[1]), limit(parts?.[2])];
    if (!parts || perMinute === 0 || perDay === 0) {
      problems.push(
        `${key} must read <per minute>/<per day>[/wait|skip], each limit 1 or more or -, got "${value}"`,
      );
      continue;
    }
    const policy = parts[3] as "wait" | "skip" | undefined;
    out[m[1].toLowerCase()] = { perMinute, perDay, ...(policy ? { policy } : {}) };
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

/** Longest TTL a setting may give (ten years): past it, seconds would stop fitting a date. */
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

/** INTEL_VENDOR_TTL_<ID>=seconds replaces how long vendor <id>'s stored answer stays fresh (0 = never). */
export function vendorTtlOverrides(env: NodeJS.ProcessEnv): Record<string, number> {
  const out: Record<string, number> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    const m = /^INTEL_VENDOR_TTL_([A-Z0-9_]+)$/.exec(key);
    if (!m?.[1] || value === undefined || value === "") continue;
    const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!(seconds <= MAX_TTL_SECONDS))
      problems.push(`${key} must be a whole number of seconds from 0 to ${MAX_TTL_SECONDS}, got "${value}"`);
    else out[m[1].toLowerCase()] = seconds;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

/** INTEL_VENDOR_URL_<ID>=http://host:port replaces the scheme, host and port of vendor <id>'s API. */
export function vendorUrlOverrides(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    const m = /^INTEL_VENDOR_URL_([A-Z0-9_]+)$/.exec(key);
    if (m?.[1] && value) out[m[1].toLowerCase()] = value.replace(/\/+$/, "");
  }
  return out;
}
