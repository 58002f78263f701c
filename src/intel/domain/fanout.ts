/**
 * Asks every candidate vendor about a subject at once: credentials rotated least-recently-used,
 * per-vendor concurrency limits, bounded time, and one vendor's failure never touching another's
 * answer. Normalisation happens here; storage is done by the caller.
 */
import pLimit, { type LimitFunction } from "p-limit";
import type { IntelConfig } from "../config.ts";
import { createVendorHttp } from "../connectors/http.ts";
import { supports } from "../connectors/registry.ts";
import {
  type Connector,
  type Credentials,
  type FetchContext,
  type Fragment,
  type Subject,
  VendorError,
} from "../connectors/types.ts";
import type { SourceOutcome } from "./document.ts";
import { keepRawAnswer, type RawAnswer } from "./raw-answers.ts";

export interface VendorAnswer {
  connector: Connector;
  outcome: SourceOutcome;
  fragment?: Fragment;
  /** What the vendor sent, redacted and size-capped, for an admin to read (absent when nothing came back). */
  raw?: RawAnswer;
}

export interface FanoutDeps {
  config: Pick<
    IntelConfig,
    "vendorTimeoutMs" | "vendorRetries" | "vendorMaxBackoffMs" | "vendorConcurrency" | "vendorUrls"
  > & { /** Raw answers are kept up to this size (0 or absent: not kept). */ rawAnswerMaxBytes?: number };
  takeCredentials(vendor: string): Promise<Credentials | undefined>;
}

const limits = new Map<string, LimitFunction>();

function limitFor(id: string, concurrency: number): LimitFunction {
  let l = limits.get(id);
  if (!l) {
    l = pLimit(concurrency);
    limits.set(id, l);
  }
  return l;
}

/** A connector can be asked when it needs no key or has at least one credential set. */
export function isUsable(connector: Connector, vendorsWithSets: ReadonlySet<string>): boolean {
  return connector.credentialFields.length === 0 || vendorsWithSets.has(connector.id);
}

/** The connectors that would be asked about this subject, given which vendors have credentials. */
export function candidates(connectors: Connector[], subject: Subject, configured: Set<string>): Connector[] {
  return connectors.filter((c) => supports(c, subject) && isUsable(c, configured));
}

export async function askVendors(
  subject: Subject,
  connectors: Connector[],
  deps: FanoutDeps,
): Promise<VendorAnswer[]> {
  return Promise.all(
    connectors.map((c) => limitFor(c.id, deps.config.vendorConcurrency)(() => askOne(c, subject, deps))),
  );
}

/** The vendor's base URL (override, credential or default) and an HTTP client bound to it and a time budget. */
function vendorContext(
  connector: Connector,
  credentials: Credentials,
  config: FanoutDeps["config"],
): { ctx: FetchContext; budget: number } | { error: string } {
  const baseUrl =
    config.vendorUrls[connector.id] ??
    (connector.baseUrlCredential ? credentials[connector.baseUrlCredential] : connector.defaultBaseUrl);
  if (!baseUrl) return { error: `not configured: no ${connector.baseUrlCredential ?? "base URL"}` };
  const budget =
    config.vendorTimeoutMs * (config.vendorRetries + 1) +
    config.vendorMaxBackoffMs * config.vendorRetries +
    1000;
  const signal = AbortSignal.timeout(budget);
  const http = createVendorHttp({
    baseUrl,
    timeoutMs: config.vendorTimeoutMs,
    retries: config.vendorRetries,
    maxBackoffMs: config.vendorMaxBackoffMs,
    signal,
  });
  return { ctx: { http, signal }, budget };
}

function describeFailure(err: unknown, ctx: FetchContext, budget: number): string {
  if (err instanceof VendorError) return `${err.code}: ${err.message}`;
  if (ctx.signal.aborted) return `timeout: no answer within ${budget} ms`;
  return `error: ${err instanceof Error ? err.message : String(err)}`;
}

async function askOne(connector: Connector, subject: Subject, deps: FanoutDeps): Promise<VendorAnswer> {
  const fail = (error: string): VendorAnswer => ({
    connector,
    outcome: { status: "error", error, fetched_at: new Date().toISOString() },
  });
  const credentials = connector.credentialFields.length > 0 ? await deps.takeCredentials(connector.id) : {};
  if (!credentials) return fail("not configured: no credentials");
  const vendor = vendorContext(connector, credentials, deps.config);
  if ("error" in vendor) return fail(vendor.error);
  const { ctx, budget } = vendor;
  try {
    const raw = await connector.fetch(subject, credentials, ctx);
    const fetchedAt = new Date().toISOString();
    if (raw === null || raw === undefined)
      return { connector, outcome: { status: "not_found", error: null, fetched_at: fetchedAt } };
    const kept = keepRawAnswer(raw, credentials, deps.config.rawAnswerMaxBytes ?? 0);
    // Every vendor answers a JSON object; a list, a string or a number is a broken proxy or API.
    if (typeof raw !== "object" || Array.isArray(raw))
      return {
        ...fail(
          `bad_response: the vendor's answer is a ${Array.isArray(raw) ? "list" : typeof raw}, not an object`,
        ),
        raw: kept,
      };
    let fragment: Fragment;
    try {
      fragment = connector.normalize(raw, subject);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return { ...fail(`bad_response: could not read the vendor's answer (${why})`), raw: kept };
    }
    return { connector, outcome: { status: "ok", error: null, fetched_at: fetchedAt }, fragment, raw: kept };
  } catch (err) {
    return fail(describeFailure(err, ctx, budget));
  }
}

/**
 * Harmless, well-known subjects to test credentials with when a connector has no `check` of its
 * own: the hashes of the empty file, a documentation domain, a public resolver's address.
 */
const PROBES: Record<string, string> = {
  MD5: "d41d8cd98f00b204e9800998ecf8427e",
  SHA1: "da39a3ee5e6b4b0d3255bfef95601890afd80709",
  SHA256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  DOMAIN: "example.com",
  HOSTNAME: "example.com",
  IPV4: "1.1.1.1",
  IPV6: "2606:4700:4700::1111",
  URL: "https://example.com/",
};

export interface CheckOutcome {
  ok: boolean;
  /** What was asked and what came back, in words. */
  message: string;
  ms: number;
}

/** One harmless call with these credentials (the admin panel's "test" button). */
export async function checkCredentials(
  connector: Connector,
  credentials: Credentials,
  config: FanoutDeps["config"],
): Promise<CheckOutcome> {
  const started = performance.now();
  const done = (ok: boolean, message: string): CheckOutcome => ({
    ok,
    message,
    ms: Math.round(performance.now() - started),
  });
  const vendor = vendorContext(connector, credentials, config);
  if ("error" in vendor) return done(false, vendor.error);
  const { ctx, budget } = vendor;
  try {
    if (connector.check) {
      await connector.check(credentials, ctx);
      return done(true, "the vendor accepted the credentials");
    }
    const probe = connector.supportedTypes.find((t) => PROBES[t.type]);
    if (!probe) return done(false, "this connector has no harmless test call");
    const subject = { ...probe, value: PROBES[probe.type]! };
    const raw = await connector.fetch(subject, credentials, ctx);
    const answer = raw === null || raw === undefined ? "does not know it" : "answered";
    return done(true, `asked about ${subject.type} ${subject.value}: the vendor ${answer}`);
  } catch (err) {
    return done(false, describeFailure(err, ctx, budget));
  }
}
