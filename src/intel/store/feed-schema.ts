/**
 * Tables of the local feed copies (public blocklists, spyware indicator bundles): one row per
 * downloaded file with its validators and age, and its entries, kept until a newer copy replaces them.
 */

export interface FeedCopiesTable {
  /** The feed's id: `tor-exits`, `feodo`, `mvt:<collection>`… */
  id: string;
  name: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  /** When the copy held was downloaded (null: never). */
  fetched_at: string | null;
  /** When the source last confirmed it (a 200 or a 304). */
  checked_at: string | null;
  /** When a refresh last started (claims the feed for one worker). */
  attempted_at: string | null;
  /** Why the last refresh failed; null when it succeeded. */
  error: string | null;
  entries: number;
  /** JSON: what a feed keeps besides its entries (the MVT index's collections). */
  meta: string;
}

export interface FeedEntriesTable {
  feed: string;
  /** A taxonomy type short name (IPV4, DOMAIN, URL, SHA256…), or CIDR for an IPv4 range. */
  kind: string;
  value: string;
  /** An IPv4 range's first and last address as numbers (CIDR rows); null otherwise. */
  low: number | null;
  high: number | null;
  /** JSON: what the list says of the value (malware, references, listing reason…). */
  info: string;
}
