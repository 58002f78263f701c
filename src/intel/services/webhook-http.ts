/**
 * Calling a webhook without becoming an SSRF tool: the host is resolved and every address must be
 * public unicast (no loopback, private, link-local, multicast, reserved… ranges, by ipaddr.js),
 * unless INTEL_WEBHOOK_ALLOW_PRIVATE; the connection is pinned to the address checked (no second DNS
 * answer can move it), redirects are not followed, and each attempt has a time limit.
 */

import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { Agent, request } from "undici";
import { badRequest, errorMessage } from "../../common/errors.ts";

export interface TargetPolicy {
  allowPrivate: boolean;
}

/** Why a URL cannot be a webhook (a 400 at creation; a failed attempt at delivery). */
export class RefusedTarget extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** ::/96: IPv4-compatible IPv6 (`::127.0.0.1`, deprecated by RFC 4291), which ipaddr.js calls unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/** The range of an address that is not public unicast ("loopback", "private"…), or undefined. */
export function nonPublicRange(address: string): string | undefined {
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range !== "unicast") return range;
  return parsed.kind() === "ipv6" && parsed.match(IPV4_COMPATIBLE) ? "ipv4Compatible" : undefined;
}

/** Checks the URL's form: http(s), a host, no credentials in it. */
export function checkWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest("invalid_webhook_url", `"${raw.slice(0, 100)}" is not a URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw badRequest("invalid_webhook_url", "A webhook URL is http:// or https://.");
  if (url.username || url.password)
    throw badRequest("invalid_webhook_url", "A webhook URL carries no credentials (the body is signed).");
  return url;
}

/** Resolves the URL's host and checks every address; the one to connect to. */
export async function resolveTarget(url: URL, policy: TargetPolicy): Promise<LookupAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: LookupAddress[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (err) {
      throw new RefusedTarget("webhook_unresolvable", `${host} does not resolve: ${errorMessage(err)}`);
    }
  }
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const range = nonPublicRange(a.address);
      if (range)
        throw new RefusedTarget(
          "webhook_address_refused",
          `${host} resolves to ${a.address} (${range}): webhooks only call public addresses (INTEL_WEBHOOK_ALLOW_PRIVATE).`,
        );
    }
  }
  const first = addresses[0];
  if (!first) throw new RefusedTarget("webhook_unresolvable", `${host} has no address`);
  return first;
}

export interface Attempt {
  httpStatus: number | null;
  error: string | null;
}

/** One POST of `body`, connected to `address` only; never throws (a failure is the attempt's error). */
export async function postPinned(
  url: URL,
  address: LookupAddress,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Attempt> {
  const pinned = new Agent({
    connect: {
      timeout: timeoutMs,
      lookup: (_host, opts, cb) => {
        if ((opts as { all?: boolean }).all) cb(null, [address] as never);
        else cb(null, address.address, address.family);
      },
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  try {
    const res = await request(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "user-agent": "Loupe-webhook", ...headers },
      dispatcher: pinned,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return { httpStatus: res.statusCode, error: ok ? null : `answered ${res.statusCode}` };
  } catch (err) {
    return { httpStatus: null, error: errorMessage(err).slice(0, 500) };
  } finally {
    void pinned.destroy().catch(() => undefined);
  }
}
