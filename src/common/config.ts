/**
 * The settings both services share (log level, listen address, data folder, HTTP timeouts), and
 * ROOT, against which every relative path in a setting is resolved (not the working directory).
 */
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import {
  integer,
  nameGiven,
  oneOf,
  optionalText,
  readSettings,
  type SettingsSpec,
  text,
} from "./settings.ts";

/** Where the repository lives; relative paths in settings are resolved against it. */
export const ROOT = process.env.LOUPE_ROOT ?? path.resolve(import.meta.dirname, "../..");

export const commonSettings = {
  logLevel: oneOf(
    ["LOUPE_LOG_LEVEL", "LOG_LEVEL"],
    "info",
    "Log level (pretty in a terminal, JSON lines otherwise).",
    ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
  ),
  host: text(["LOUPE_HOST", "HOST"], "127.0.0.1", "Address both services listen on."),
  dataDir: text(
    ["LOUPE_DATA_DIR", "DATA_DIR"],
    "./data",
    "Folder for databases, the managed clamd and other state.",
  ),
  rateLimitPerMinute: integer(
    ["LOUPE_RATE_LIMIT_PER_MINUTE", "RATE_LIMIT_PER_MINUTE"],
    0,
    "Requests per minute per client IP on each service (0 = unlimited).",
    { min: 0 },
  ),
  metricsToken: optionalText(
    ["LOUPE_METRICS_TOKEN", "METRICS_TOKEN"],
    "When set, /metrics answers only to `Authorization: Bearer <token>` (a Prometheus bearer_token).",
  ),
  requestTimeoutMs: integer(
    ["LOUPE_HTTP_REQUEST_TIMEOUT_MS", "HTTP_REQUEST_TIMEOUT_MS"],
    300_000,
    "Time a client has to send a whole request (headers and body); past it the connection is closed.",
    { min: 1_000 },
  ),
  headersTimeoutMs: integer(
    ["LOUPE_HTTP_HEADERS_TIMEOUT_MS", "HTTP_HEADERS_TIMEOUT_MS"],
    30_000,
    "Time a client has to send a request's headers.",
    { min: 1_000 },
  ),
  bodyIdleTimeoutMs: integer(
    ["LOUPE_HTTP_BODY_IDLE_TIMEOUT_MS", "HTTP_BODY_IDLE_TIMEOUT_MS"],
    30_000,
    "Longest silence while a request body is being received; past it the connection is closed.",
    { min: 100 },
  ),
  keepAliveTimeoutMs: integer(
    ["LOUPE_HTTP_KEEP_ALIVE_TIMEOUT_MS", "HTTP_KEEP_ALIVE_TIMEOUT_MS"],
    5_000,
    "How long an idle keep-alive connection is kept open between requests.",
    { min: 100 },
  ),
};

/** The bounds that keep a slow or silent client from holding a connection (slowloris). */
export interface HttpTimeouts {
  requestMs: number;
  headersMs: number;
  bodyIdleMs: number;
  keepAliveMs: number;
}

export type CommonConfig = ReturnType<typeof readCommonConfig>;

export function readCommonConfig(env: NodeJS.ProcessEnv = process.env) {
  const s = readSettings(commonSettings, env);
  const timeouts: HttpTimeouts = {
    requestMs: s.requestTimeoutMs,
    // Node refuses a headers timeout longer than the request timeout.
    headersMs: Math.min(s.headersTimeoutMs, s.requestTimeoutMs),
    bodyIdleMs: s.bodyIdleTimeoutMs,
    keepAliveMs: s.keepAliveTimeoutMs,
  };
  return { ...s, timeouts, dataDir: resolveFromRoot(s.dataDir) };
}

export function resolveFromRoot(p: string): string {
  return path.isAbsolute(p) ? p : path.resolve(ROOT, p);
}

/** Where a setting without a value of its own points: every instance's own LOUPE_DATA_DIR and ports. */
export function derivedDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  const dataDir = dataDirOf(env);
  const filesPort = env.FILES_PORT?.trim() || "8000";
  const intelPort = env.INTEL_PORT?.trim() || "9080";
  const intelUrl = `http://127.0.0.1:${intelPort}`;
  // Temp files stay on the system's temp disk, in a folder of this LOUPE_DATA_DIR's own.
  const instance = createHash("sha256").update(dataDir).digest("hex").slice(0, 12);
  return {
    INTEL_DATABASE_URL: `sqlite:${path.join(dataDir, "intel.db")}`,
    INTEL_BASE_URL: intelUrl,
    INTEL_URL: intelUrl,
    FILES_URL: `http://127.0.0.1:${filesPort}`,
    FILES_TMP_DIR: path.join(os.tmpdir(), `loupe-files-${instance}`),
  };
}

/** LOUPE_DATA_DIR (or its alias DATA_DIR) as an absolute path. */
export function dataDirOf(env: NodeJS.ProcessEnv): string {
  const name = nameGiven(commonSettings.dataDir, env);
  return resolveFromRoot((name && env[name]?.trim()) || "./data");
}

/** `env` with the derived defaults filled in where it leaves a setting of `spec` unset or empty (by any of its names). */
export function withDerivedDefaults(spec: SettingsSpec, given: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...given };
  const settings = Object.values(spec);
  for (const [name, value] of Object.entries(derivedDefaults(given))) {
    const s = settings.find((candidate) => candidate.env === name);
    if (!(s ? nameGiven(s, given) : given[name]?.trim())) out[name] = value;
  }
  return out;
}
