/**
 * Configuration checks: every setting parses (the same readers the services use, so doctor and
 * the services never disagree), and what a public deployment must add: TLS and its own secrets.
 * Loopback addresses are exempt: a laptop needs neither.
 */
import { readCommonConfig } from "../../common/config.ts";
import { ConfigError } from "../../common/settings.ts";
import { readFilesConfig } from "../../files/config.ts";
import { readIntelConfig } from "../../intel/config.ts";
import { enabledConnectors } from "../../intel/services/index.ts";
import { type CheckResult, error, messageOf, ok, warn } from "./result.ts";
import { readDoctorSettings } from "./settings.ts";

const SHORTEST_SECRET = 32;

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export function configurationCheck(env: NodeJS.ProcessEnv): CheckResult {
  const problems: string[] = [];
  const readers = [
    () => readCommonConfig(env),
    () => readFilesConfig(env),
    () => readDoctorSettings(env),
    () => enabledConnectors(readIntelConfig(env).connectors),
  ];
  for (const read of readers) {
    try {
      read();
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else problems.push(messageOf(err));
    }
  }
  if (problems.length > 0)
    return error("configuration", problems.join("; "), "correct these variables (docs/configuration.md)");
  return ok("configuration", "every setting is valid");
}

/** INTEL_BASE_URL: plain http is fine on loopback only (admin cookies and API keys travel over it). */
export function tlsCheck(env: NodeJS.ProcessEnv): CheckResult {
  let url: URL;
  try {
    url = new URL(readIntelConfig(env).baseUrl);
  } catch (err) {
    return error(
      "tls",
      `INTEL_BASE_URL cannot be read: ${messageOf(err)}`,
      "set INTEL_BASE_URL to the public https URL",
    );
  }
  if (isLoopbackHost(url.hostname))
    return ok("tls", `INTEL_BASE_URL ${url.origin} is loopback: plain http is fine`);
  if (url.protocol === "https:") return ok("tls", `INTEL_BASE_URL ${url.origin} is https`);
  return error(
    "tls",
    `INTEL_BASE_URL ${url.origin} is public and plain http: API keys and admin sessions would cross the network in clear`,
    "put a TLS proxy in front (docs/deployment.md) and set INTEL_BASE_URL=https://…",
  );
}

/** A public service keeps its secrets in its configuration, not only in one database it may lose. */
export function secretsCheck(env: NodeJS.ProcessEnv): CheckResult {
  let intel: ReturnType<typeof readIntelConfig>;
  let common: ReturnType<typeof readCommonConfig>;
  try {
    intel = readIntelConfig(env);
    common = readCommonConfig(env);
  } catch (err) {
    return error("secrets", messageOf(err), "correct the configuration first");
  }
  const publicUrl = !isLoopbackHost(new URL(intel.baseUrl).hostname);
  const missing: string[] = [];
  if (publicUrl && !intel.secretKey)
    missing.push("INTEL_SECRET_KEY is unset (a random one is kept in the database)");
  if (intel.secretKey && intel.secretKey.length < SHORTEST_SECRET)
    missing.push(`INTEL_SECRET_KEY is shorter than ${SHORTEST_SECRET} characters`);
  if (!isLoopbackHost(common.host) && !common.metricsToken)
    missing.push(`HOST ${common.host} is not loopback and LOUPE_METRICS_TOKEN is unset (/metrics is open)`);
  if (missing.length > 0)
    return warn("secrets", missing.join("; "), "set them in the environment file: openssl rand -hex 32");
  return ok(
    "secrets",
    publicUrl ? "INTEL_SECRET_KEY is set" : "loopback deployment: generated secrets are fine",
  );
}
