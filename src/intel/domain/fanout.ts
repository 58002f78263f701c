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
  type Fragment,
  type Subject,
  VendorError,
} from "../connectors/types.ts";
import type { SourceOutcome } from "./document.ts";

export interface VendorAnswer {
  connector: Connector;
  outcome: SourceOutcome;
  fragment?: Fragment;
}

export interface FanoutDeps {
  config: Pick<
    IntelConfig,
    "vendorTimeoutMs" | "vendorRetries" | "vendorMaxBackoffMs" | "vendorConcurrency" | "vendorUrls"
  >;
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

/** The connectors that would be asked about this subject, given which vendors have credentials. */
export function candidates(connectors: Connector[], subject: Subject, configured: Set<string>): Connector[] {
  return connectors.filter(
    (c) => supports(c, subject) && (c.credentialFields.length === 0 || configured.has(c.id)),
  );
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

async function askOne(connector: Connector, subject: Subject, deps: FanoutDeps): Promise<VendorAnswer> {
  const { config } = deps;
  const fail = (error: string): VendorAnswer => ({
    connector,
    outcome: { status: "error", error, fetched_at: new Date().toISOString() },
  });
  const credentials = connector.credentialFields.length > 0 ? await deps.takeCredentials(connector.id) : {};
  if (!credentials) return fail("not configured: no credentials");
  const baseUrl =
    config.vendorUrls[connector.id] ??
    (connector.baseUrlCredential ? credentials[connector.baseUrlCredential] : connector.defaultBaseUrl);
  if (!baseUrl) return fail(`not configured: no ${connector.baseUrlCredential ?? "base URL"}`);
  const budget =
    config.vendorTimeoutMs * (config.vendorRetries + 1) +
    config.vendorMaxBackoffMs * config.vendorRetries +
    1000;
  const signal = AbortSignal.timeout(budget);
  try {
    const http = createVendorHttp({
      baseUrl,
      timeoutMs: config.vendorTimeoutMs,
      retries: config.vendorRetries,
      maxBackoffMs: config.vendorMaxBackoffMs,
      signal,
    });
    const raw = await connector.fetch(subject, credentials, { http, signal });
    const fetchedAt = new Date().toISOString();
    if (raw === null || raw === undefined)
      return { connector, outcome: { status: "not_found", error: null, fetched_at: fetchedAt } };
    let fragment: Fragment;
    try {
      fragment = connector.normalize(raw, subject);
    } catch (err) {
      return fail(
        `bad_response: could not read the vendor's answer (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    return { connector, outcome: { status: "ok", error: null, fetched_at: fetchedAt }, fragment };
  } catch (err) {
    if (err instanceof VendorError) return fail(`${err.code}: ${err.message}`);
    if (signal.aborted) return fail(`timeout: no answer within ${budget} ms`);
    return fail(`error: ${err instanceof Error ? err.message : String(err)}`);
  }
}
