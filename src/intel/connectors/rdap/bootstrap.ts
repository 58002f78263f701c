/**
 * IANA's RDAP bootstrap (RFC 9224): `dns.json`, `ipv4.json`, `ipv6.json` map TLDs and address
 * blocks to the registries' RDAP servers. Each file is kept per bootstrap origin for a day (IANA
 * asks clients to cache it), so a lookup costs one call to the registry.
 */
import ipaddr from "ipaddr.js";
import type { FetchContext } from "../types.ts";

export type BootstrapKind = "dns" | "ipv4" | "ipv6";

interface Bootstrap {
  /** Each service: its keys (TLDs or CIDRs) and its RDAP base URLs. */
  services: Array<[string[], string[]]>;
}

const DAY_MS = 86_400_000;
const cache = new Map<string, { at: number; file: Bootstrap }>();

async function bootstrap(kind: BootstrapKind, ctx: FetchContext): Promise<Bootstrap> {
  const key = `${ctx.baseUrl ?? ""} ${kind}`;
  const held = cache.get(key);
  if (held && Date.now() - held.at < DAY_MS) return held.file;
  const res = await ctx.http.get(`/rdap/${kind}.json`);
  const body = res.json() as { services?: unknown };
  if (res.status !== 200 || !Array.isArray(body?.services)) throw new Error(`no RDAP bootstrap for ${kind}`);
  const file: Bootstrap = {
    services: (body.services as unknown[]).filter(
      (s): s is [string[], string[]] => Array.isArray(s) && Array.isArray(s[0]) && Array.isArray(s[1]),
    ),
  };
  cache.set(key, { at: Date.now(), file });
  return file;
}

const https = (urls: string[]) =>
  urls.find((u) => u.startsWith("https://")) ?? urls.find((u) => u.startsWith("http://"));

/** The RDAP server for a domain: the service of its longest matching label suffix. */
export async function serverForDomain(domain: string, ctx: FetchContext): Promise<string | undefined> {
  const { services } = await bootstrap("dns", ctx);
  const labels = domain.toLowerCase().split(".");
  for (let i = 0; i < labels.length; i++) {
    const suffix = labels.slice(i).join(".");
    const hit = services.find(([keys]) => keys.some((k) => k.toLowerCase() === suffix));
    if (hit) return https(hit[1]);
  }
  return undefined;
}

/** The RDAP server for an address: the service of the longest block holding it. */
export async function serverForAddress(address: string, ctx: FetchContext): Promise<string | undefined> {
  const ip = ipaddr.parse(address);
  const { services } = await bootstrap(ip.kind() === "ipv4" ? "ipv4" : "ipv6", ctx);
  let best: { bits: number; url: string | undefined } | undefined;
  for (const [keys, urls] of services)
    for (const key of keys) {
      if (!ipaddr.isValidCIDR(key)) continue;
      const [net, bits] = ipaddr.parseCIDR(key);
      if (net.kind() === ip.kind() && ip.match([net, bits]) && (!best || bits > best.bits))
        best = { bits, url: https(urls) };
    }
  return best?.url;
}
