/**
 * Vendor HTTP over undici: requests only reach the connector's base URL (no SSRF through subject
 * values), each attempt has a time limit, 429 and 5xx are retried with backoff honouring
 * Retry-After, and failures become VendorErrors with a stable code.
 */
import { Agent, request } from "undici";
import type { RequestOptions, VendorHttp, VendorResponse } from "./types.ts";
import { VendorError } from "./types.ts";

export interface VendorHttpOptions {
  baseUrl: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Extra attempts after the first, for 429/5xx/network errors. */
  retries: number;
  /** Longest wait between attempts, whatever Retry-After says. */
  maxBackoffMs: number;
  /** Headers on every request (auth). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  maxResponseBytes?: number;
  /** Counts every attempt against the vendor's quota (domain/quota.ts). */
  gate?: CallGate;
}

/** A vendor's word that no call should reach it before `until` (ISO 8601). */
export interface Throttle {
  until: string;
  reason: string;
}

/** Wraps each attempt: `acquire` before (may wait, or throw VendorError), `release` after. */
export interface CallGate {
  acquire(signal?: AbortSignal): Promise<void>;
  release(throttle?: Throttle): Promise<void>;
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const DEFAULT_MAX_RESPONSE = 32 * 1024 * 1024;
const USER_AGENT = "Loupe-intel";

const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

export function createVendorHttp(opts: VendorHttpOptions): VendorHttp {
  const base = new URL(opts.baseUrl);
  const call = (method: "GET" | "POST", path: string, options: RequestOptions = {}) =>
    send(opts, base, method, path, options);
  return {
    get: (path, options) => call("GET", path, options),
    post: (path, options) => call("POST", path, options),
  };
}

/** Builds the URL of `path` under the base URL; anything that would leave its origin is refused. */
export function vendorUrl(base: URL, path: string, query?: RequestOptions["query"]): URL {
  if (!path.startsWith("/") || path.startsWith("//")) {
    throw new VendorError(
      "http_error",
      `refusing a vendor path that is not relative to the base URL: ${path}`,
    );
  }
  const prefix = base.pathname.replace(/\/+$/, "");
  const url = new URL(base.origin);
  const [pathname, search] = splitOnce(path, "?");
  url.pathname = prefix + pathname;
  if (search) url.search = search;
  if (url.origin !== base.origin)
    throw new VendorError("http_error", "refusing a request outside the vendor origin");
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

async function send(
  opts: VendorHttpOptions,
  base: URL,
  method: "GET" | "POST",
  path: string,
  options: RequestOptions,
): Promise<VendorResponse> {
  const url = vendorUrl(base, path, options.query);
  const headers: Record<string, string> = {
    "user-agent": USER_AGENT,
    accept: "application/json",
    ...opts.headers,
  };
  Object.assign(headers, options.headers);
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] = "application/json";
  } else if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  for (let attempt = 0; ; attempt++) {
    let response: VendorResponse;
    await opts.gate?.acquire(opts.signal);
    try {
      response = await attemptOnce(url, method, headers, body, opts);
    } catch (err) {
      await opts.gate?.release();
      const failure = toVendorError(err, opts);
      if (failure.code === "network_error" && attempt < opts.retries && !opts.signal?.aborted) {
        await sleep(backoffMs(attempt, undefined, opts.maxBackoffMs), opts.signal);
        continue;
      }
      throw failure;
    }
    const throttle = throttleOf(response);
    await opts.gate?.release(throttle);
    const { status } = response;
    if (RETRYABLE.has(status) && attempt < opts.retries) {
      // A gate holds the next attempt until the vendor's time itself (or gives up); no sleep here.
      if (!(opts.gate && throttle))
        await sleep(backoffMs(attempt, header(response, "retry-after"), opts.maxBackoffMs), opts.signal);
      continue;
    }
    return finalAnswer(response, options);
  }
}

/** The answer handed to the connector, or the VendorError its status means. */
function finalAnswer(response: VendorResponse, options: RequestOptions): VendorResponse {
  const { status } = response;
  if (status === 404 || (status >= 200 && status < 300) || options.accept?.includes(status)) return response;
  if (status === 401 || status === 403) {
    throw new VendorError("invalid_credentials", `invalid credentials (HTTP ${status})`, status);
  }
  if (status === 429) throw new VendorError("rate_limited", "rate limited by the vendor (HTTP 429)", status);
  throw new VendorError("http_error", `vendor answered HTTP ${status}`, status);
}

/** A time, in seconds from now, an HTTP date or epoch seconds, as ISO 8601 (undefined if unreadable). */
function timeFrom(value: string | undefined, now: number): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  // Small numbers are delays (Retry-After, X-Rate-Limit-Reset-After); large ones epoch seconds.
  const ms = Number.isFinite(n) ? (n < 1e9 ? now + n * 1000 : n * 1000) : Date.parse(value);
  // Past year 275760 a Date cannot be written; the caller caps a block's length anyway.
  return Number.isFinite(ms) && ms > now && ms < 8.64e15 ? new Date(ms).toISOString() : undefined;
}

/**
 * When the vendor says to stop calling until a time: a 429's Retry-After, VirusTotal's daily
 * QuotaExceededError (its quotas start again at 00:00 UTC), or rate limit headers saying that
 * nothing is left (X-RateLimit-Remaining: 0 with its reset time).
 */
export function throttleOf(res: VendorResponse, now = Date.now()): Throttle | undefined {
  if (res.status === 429) {
    const retryAfter = header(res, "retry-after");
    const until = timeFrom(retryAfter, now);
    if (until) return { until, reason: `HTTP 429, Retry-After: ${retryAfter}` };
    if (/"code"\s*:\s*"QuotaExceededError"/.test(res.text.slice(0, 4096))) {
      const midnight = new Date(now);
      midnight.setUTCHours(24, 0, 0, 0);
      return { until: midnight.toISOString(), reason: "HTTP 429 QuotaExceededError (daily quota)" };
    }
  }
  const left = header(res, "x-ratelimit-remaining") ?? header(res, "x-rate-limit-remaining");
  if (left?.trim() !== "0") return undefined;
  const reset =
    timeFrom(header(res, "x-rate-limit-reset-after"), now) ??
    timeFrom(header(res, "x-ratelimit-reset") ?? header(res, "x-rate-limit-reset"), now);
  return reset ? { until: reset, reason: "the vendor's rate limit headers say no call is left" } : undefined;
}

async function attemptOnce(
  url: URL,
  method: "GET" | "POST",
  headers: Record<string, string>,
  body: string | undefined,
  opts: VendorHttpOptions,
): Promise<VendorResponse> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const res = await request(url, {
    method,
    headers,
    body,
    signal,
    dispatcher: agent,
    maxRedirections: 0,
  } as never);
  const limit = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      res.body.destroy();
      throw new VendorError("bad_response", `vendor response larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    json: () => {
      try {
        return JSON.parse(text);
      } catch {
        throw new VendorError(
          "bad_response",
          `vendor answered something that is not JSON (HTTP ${res.statusCode})`,
        );
      }
    },
  };
}

function header(res: VendorResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Retry-After (seconds or HTTP date) when given, else exponential backoff with jitter; capped. */
export function backoffMs(attempt: number, retryAfter: string | undefined, maxMs: number): number {
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), maxMs);
  }
  const exp = 250 * 2 ** attempt;
  return Math.min(exp + Math.random() * exp * 0.2, maxMs);
}

function toVendorError(err: unknown, opts: VendorHttpOptions): VendorError {
  if (err instanceof VendorError) return err;
  const e = err as { name?: string; code?: string; message?: string };
  if (
    e.name === "TimeoutError" ||
    e.code === "UND_ERR_HEADERS_TIMEOUT" ||
    e.code === "UND_ERR_BODY_TIMEOUT"
  ) {
    return new VendorError("timeout", `vendor did not answer within ${opts.timeoutMs} ms`);
  }
  if (e.name === "AbortError" || opts.signal?.aborted)
    return new VendorError("timeout", "vendor call aborted");
  return new VendorError(
    "network_error",
    `could not reach the vendor: ${e.code ?? e.message ?? String(err)}`,
  );
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}
