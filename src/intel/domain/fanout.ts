/**
 * Asks every candidate vendor about a subject at once: a credential set with quota left for each
 * (domain/quota.ts; a set whose key is refused is taken out of rotation and the next one tried),
 * per-vendor concurrency limits, bounded time, and one vendor's failure never touching another's
 * answer. Normalisation happens here; storage is done by the caller.
 */
import pLimit, { type LimitFunction } from "p-limit";
import type { IntelConfig } from "../config.ts";
import type { FeedReader } from "../connectors/feed.ts";
import { type CallGate, createVendorHttp } from "../connectors/http.ts";
import { supports } from "../connectors/registry.ts";
import { type Connector, type FetchContext, VendorError } from "../connectors/types.ts";
import type { Credentials } from "../model/credentials.ts";
import type { Fragment, Subject } from "../model/graph.ts";
import { capAnswer } from "./answer-cap.ts";
import type { VendorSlot } from "./quota.ts";
import { keepRawAnswer, type RawAnswer } from "./raw-answers.ts";
import type { SourceOutcome } from "./sources.ts";

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
  > & {
    /** Raw answers are kept up to this size (0 or absent: not kept). */ rawAnswerMaxBytes?: number;
    /** Entities kept from one answer (absent: all; domain/answer-cap.ts). */ answerMaxEntities?: number;
  };
  /**
   * A credential set of the vendor with one call reserved on it (undefined: none configured); may
   * wait for quota, and throws VendorError "quota_exhausted" when none comes in time. `holdMs`:
   * the longest the call can take.
   */
  takeSlot(connector: Connector, holdMs: number): Promise<VendorSlot | undefined>;
  /** The local feed copies, for the connectors that read them. */
  feeds?: FeedReader;
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

/** The longest one vendor call can take, every retry and backoff included. */
function callBudgetMs(config: FanoutDeps["config"]): number {
  return (
    config.vendorTimeoutMs * (config.vendorRetries + 1) +
    config.vendorMaxBackoffMs * config.vendorRetries +
    1000
  );
}

/** The vendor's base URL (override, credential or default) and an HTTP client bound to it and a time budget. */
function vendorContext(
  connector: Connector,
  credentials: Credentials,
  config: FanoutDeps["config"],
  gate?: CallGate,
): { ctx: FetchContext; budget: number } | { error: string } {
  const baseUrl =
    config.vendorUrls[connector.id] ??
    (connector.baseUrlCredential ? credentials[connector.baseUrlCredential] : connector.defaultBaseUrl);
  if (!baseUrl) return { error: `not configured: no ${connector.baseUrlCredential ?? "base URL"}` };
  const budget = callBudgetMs(config);
  const signal = AbortSignal.timeout(budget);
  const http = createVendorHttp({
    baseUrl,
    timeoutMs: config.vendorTimeoutMs,
    retries: config.vendorRetries,
    maxBackoffMs: config.vendorMaxBackoffMs,
    signal,
    ...(gate ? { gate } : {}),
  });
  return { ctx: { http, signal, baseUrl }, budget };
}

function describeFailure(err: unknown, ctx: FetchContext, budget: number): string {
  if (err instanceof VendorError) return `${err.code}: ${err.message}`;
  if (ctx.signal.aborted) return `timeout: no answer within ${budget} ms`;
  return `error: ${err instanceof Error ? err.message : String(err)}`;
}

const failed = (connector: Connector, error: string): VendorAnswer => ({
  connector,
  outcome: { status: "error", error, fetched_at: new Date().toISOString() },
});

/** Sets tried for one vendor call when keys are refused, before giving up. */
const MAX_REFUSED_SETS = 5;

async function askOne(connector: Connector, subject: Subject, deps: FanoutDeps): Promise<VendorAnswer> {
  let refusal: VendorAnswer | undefined;
  for (let tries = 1; ; tries++) {
    let slot: VendorSlot | undefined;
    try {
      slot = await deps.takeSlot(connector, callBudgetMs(deps.config));
    } catch (err) {
      if (err instanceof VendorError) return failed(connector, `${err.code}: ${err.message}`);
      throw err;
    }
    // No set left after refusals: the vendor's refusal is the outcome, not "not configured".
    if (!slot) return refusal ?? failed(connector, "not configured: no credentials");
    const { answer, code } = await askWith(connector, subject, slot, deps.config, deps.feeds);
    if (code !== "invalid_credentials" || !slot.refused) return answer;
    // The vendor refused this key: out of rotation (until an admin re-tests it), and the next set is tried.
    await slot.refused(answer.outcome.error ?? "invalid credentials");
    refusal = answer;
    if (tries >= MAX_REFUSED_SETS) return answer;
  }
}

/** A failed answer that still keeps what the vendor said (for the admin's raw answers). */
const keeping = (raw: RawAnswer | undefined, failure: { answer: VendorAnswer }) => ({
  answer: { ...failure.answer, raw },
});

/** One vendor call with the slot's credentials; `code` is the VendorError code when it failed with one. */
async function askWith(
  connector: Connector,
  subject: Subject,
  slot: VendorSlot,
  config: FanoutDeps["config"],
  feeds?: FeedReader,
): Promise<{ answer: VendorAnswer; code?: string }> {
  const fail = (error: string) => ({ answer: failed(connector, error) });
  const vendor = vendorContext(connector, slot.credentials, config, slot.gate);
  if ("error" in vendor) return fail(vendor.error);
  const { budget } = vendor;
  const ctx: FetchContext = feeds ? { ...vendor.ctx, feeds } : vendor.ctx;
  try {
    const raw = await connector.fetch(subject, slot.credentials, ctx);
    const fetchedAt = new Date().toISOString();
    if (raw === null || raw === undefined)
      return { answer: { connector, outcome: { status: "not_found", error: null, fetched_at: fetchedAt } } };
    const kept = keepRawAnswer(raw, slot.credentials, config.rawAnswerMaxBytes ?? 0);
    // Every vendor answers a JSON object; a list, a string or a number is a broken proxy or API.
    if (typeof raw !== "object" || Array.isArray(raw))
      return keeping(
        kept,
        fail(
          `bad_response: the vendor's answer is a ${Array.isArray(raw) ? "list" : typeof raw}, not an object`,
        ),
      );
    let fragment: Fragment;
    try {
      fragment = connector.normalize(raw, subject);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return keeping(kept, fail(`bad_response: could not read the vendor's answer (${why})`));
    }
    const cut = capAnswer(fragment, subject, config.answerMaxEntities ?? Number.POSITIVE_INFINITY);
    return {
      answer: {
        connector,
        outcome: {
          status: "ok",
          error: null,
          fetched_at: fetchedAt,
          ...(cut.capped ? { capped: cut.capped } : {}),
        },
        fragment: cut.fragment,
        raw: kept,
      },
    };
  } catch (err) {
    return {
      ...fail(describeFailure(err, ctx, budget)),
      ...(err instanceof VendorError ? { code: err.code } : {}),
    };
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
