import { httpUrl, integer, optionalText, readSettings, text } from "../common/settings.ts";

/** Settings of the intel service (docs/configuration.md lists them). */
export const intelSettings = {
  port: integer("INTEL_PORT", 9080, "Port of the intel service.", { min: 0, max: 65535 }),
  databaseUrl: text(
    "DATABASE_URL",
    "sqlite:./data/intel.db",
    "sqlite:<path> (embedded, WAL) or postgres://… (scale-out: several workers).",
  ),
  baseUrl: httpUrl(
    "BASE_URL",
    "http://127.0.0.1:9080",
    "Public URL of the intel service (links, admin panel).",
  ),
  adminPath: optionalText(
    "ADMIN_PATH",
    "Path of the admin panel; a random 32-hex path is made and kept when unset.",
  ),
  secretKey: optionalText(
    "SECRET_KEY",
    "Secret that signs admin sessions; generated and kept in the database when unset.",
  ),
  adminSessionHours: integer("ADMIN_SESSION_HOURS", 12, "How long an admin panel login lasts.", {
    min: 1,
    max: 24 * 90,
  }),
  adminLoginFailuresPerUser: integer(
    "ADMIN_LOGIN_FAILURES_PER_USER",
    5,
    "Failed admin logins for one username before it is locked out for ADMIN_LOGIN_LOCKOUT_SECONDS.",
    { min: 1 },
  ),
  adminLoginFailuresPerIp: integer(
    "ADMIN_LOGIN_FAILURES_PER_IP",
    20,
    "Failed admin logins from one client address before it is locked out.",
    { min: 1 },
  ),
  adminLoginLockoutSeconds: integer(
    "ADMIN_LOGIN_LOCKOUT_SECONDS",
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
  retryAfterSeconds: integer("INTEL_RETRY_AFTER", 2, "Retry-After (seconds) sent with 201 answers.", {
    min: 1,
    max: 3600,
  }),
  workerConcurrency: integer("INTEL_WORKER_CONCURRENCY", 8, "Lookups one worker runs at once.", {
    min: 1,
    max: 256,
  }),
  connectors: text(
    "INTEL_CONNECTORS",
    "all",
    "Connectors to use: all, or a comma-separated list of ids (virustotal,hashlookup,…).",
  ),
  databaseWaitMs: integer(
    "DATABASE_WAIT_MS",
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
  retentionSweepMinutes: integer(
    "INTEL_RETENTION_SWEEP_MINUTES",
    360,
    "How often a worker runs the retention sweep.",
    { min: 1 },
  ),
};

export type IntelConfig = ReturnType<typeof readIntelConfig>;

export function readIntelConfig(env: NodeJS.ProcessEnv = process.env) {
  return { ...readSettings(intelSettings, env), vendorUrls: vendorUrlOverrides(env) };
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
