/**
 * What the connectors built on downloaded files (public blocklists, spyware indicator bundles)
 * share: the entries a file's parser gives, and the reader of the local copies the framework
 * hands their `fetch` (FetchContext.feeds), so that a lookup never leaves the machine.
 */
import ipaddr from "ipaddr.js";

/**
 * The longest value kept from a feed (longer ones are skipped): PostgreSQL's index entries hold
 * about 2,700 bytes, and 600 characters stay under it even when each takes four bytes.
 */
export const MAX_FEED_VALUE = 600;

/** One value a feed file lists, typed by the taxonomy (CIDR: an IPv4 range, `low`–`high`). */
export interface FeedEntry {
  kind: string;
  value: string;
  low?: number;
  high?: number;
  /** What the file says of the value; kept as JSON. */
  info: Record<string, unknown>;
}

/** One local entry matching a subject, with the age of the copy it comes from. */
export interface FeedMatch {
  /** The feed's id (`tor-exits`, `mvt:pegasus.stix2`…) and name. */
  feed: string;
  name: string;
  kind: string;
  value: string;
  info: Record<string, unknown>;
  /** When the copy was downloaded, and when its source last confirmed it. */
  fetchedAt: string | null;
  checkedAt: string | null;
}

/** Reads the local copies: entries of feeds whose id starts with `prefix`. */
export interface FeedReader {
  find(prefix: string, query: { kinds: string[]; values: string[]; ipv4?: number }): Promise<FeedMatch[]>;
}

/** An IPv4 address as a number (for CIDR ranges); undefined for anything else. */
export function ipv4Number(value: string): number | undefined {
  if (!ipaddr.IPv4.isValidFourPartDecimal(value)) return undefined;
  return ipaddr.IPv4.parse(value)
    .toByteArray()
    .reduce((n, b) => n * 256 + b, 0);
}

/** An IPv4 CIDR (`192.0.2.0/24`) as its first and last address; undefined when it is not one. */
export function ipv4Range(cidr: string): { low: number; high: number } | undefined {
  if (!ipaddr.IPv4.isValidCIDR(cidr)) return undefined;
  const [address, bits] = ipaddr.IPv4.parseCIDR(cidr);
  const low = ipv4Number(ipaddr.IPv4.networkAddressFromCIDR(cidr).toString());
  if (low === undefined || address.kind() !== "ipv4") return undefined;
  return { low, high: low + 2 ** (32 - bits) - 1 };
}
