/**
 * Local feed copies: downloading each public blocklist and each MVT indicator bundle with a
 * conditional GET (If-None-Match / If-Modified-Since), replacing the copy only with a file that
 * parses, and keeping the old copy (with why the refresh failed) otherwise; and reading the copies
 * for the connectors (FeedReader). Every worker runs the schedule; a claim in the database makes
 * one of them download each feed.
 */
import type { IntelConfig } from "../config.ts";
import { BLOCKLISTS } from "../connectors/blocklists/lists.ts";
import type { FeedEntry, FeedReader } from "../connectors/feed.ts";
import { type MvtCollection, parseMvtBundle, parseMvtIndex } from "../connectors/mvt/stix.ts";
import type { Store } from "../store/db.ts";
import {
  claimRefresh,
  dropCopies,
  type FeedCopy,
  findEntries,
  listCopies,
  recordFailure,
  recordNotModified,
  replaceCopy,
} from "../store/feeds.ts";

type Db = Store["db"];

export type FeedConfig = Pick<
  IntelConfig,
  | "feedsRefreshMinutes"
  | "feedTimeoutMs"
  | "feedMaxBytes"
  | "mvtIndexUrl"
  | "mvtFilesBaseUrl"
  | "torExitsUrl"
  | "feodoUrl"
  | "sslblUrl"
  | "spamhausDropUrl"
  | "spamhausEdropUrl"
  | "openphishUrl"
>;

/** One file to keep a copy of: where it is and how it reads (entries, and what to keep beside them). */
export interface FeedSource {
  id: string;
  name: string;
  url: string;
  parse(text: string): { entries: FeedEntry[]; meta?: unknown };
}

export type RefreshOutcome = "updated" | "not_modified" | "failed" | "skipped";

export const MVT_INDEX = "mvt-index";

const BLOCKLIST_URL: Record<string, (c: FeedConfig) => string> = {
  "tor-exits": (c) => c.torExitsUrl,
  feodo: (c) => c.feodoUrl,
  sslbl: (c) => c.sslblUrl,
  "spamhaus-drop": (c) => c.spamhausDropUrl,
  "spamhaus-edrop": (c) => c.spamhausEdropUrl,
  openphish: (c) => c.openphishUrl,
};

export const blocklistSources = (config: FeedConfig): FeedSource[] =>
  BLOCKLISTS.map((l) => ({
    id: l.id,
    name: l.name,
    url: BLOCKLIST_URL[l.id]?.(config) ?? l.defaultUrl,
    parse: (text) => ({ entries: l.parse(text) }),
  }));

/** The body of a download, at most `maxBytes`, or a 304. */
async function download(
  url: string,
  held: FeedCopy,
  config: FeedConfig,
): Promise<
  { status: 304 } | { status: 200; text: string; etag: string | null; lastModified: string | null }
> {
  const headers: Record<string, string> = {};
  if (held.fetched_at && held.etag) headers["if-none-match"] = held.etag;
  if (held.fetched_at && held.last_modified) headers["if-modified-since"] = held.last_modified;
  const res = await fetch(url, {
    headers,
    signal: AbortSignal.timeout(config.feedTimeoutMs),
    redirect: "follow",
  });
  if (res.status === 304 && held.fetched_at) return { status: 304 };
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get("content-length") ?? 0);
  if (declared > config.feedMaxBytes) {
    await res.body?.cancel();
    throw new Error(`the file is larger than INTEL_FEED_MAX_BYTES (${declared} bytes)`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > config.feedMaxBytes) throw new Error("the file is larger than INTEL_FEED_MAX_BYTES");
    chunks.push(chunk);
  }
  return {
    status: 200,
    text: Buffer.concat(chunks).toString("utf8"),
    etag: res.headers.get("etag"),
    lastModified: res.headers.get("last-modified"),
  };
}

const intervalMs = (config: FeedConfig) => config.feedsRefreshMinutes * 60_000;

/** Refreshes one feed if its last attempt is older than the interval (and no other worker has it). */
export async function refreshFeed(db: Db, source: FeedSource, config: FeedConfig): Promise<RefreshOutcome> {
  const held = await claimRefresh(db, source, new Date(Date.now() - intervalMs(config)).toISOString());
  if (!held) return "skipped";
  try {
    const got = await download(source.url, held, config);
    if (got.status === 304) {
      await recordNotModified(db, source.id);
      return "not_modified";
    }
    const { entries, meta } = source.parse(got.text);
    await replaceCopy(db, source.id, {
      entries: entries.map((e) => ({ ...e, info: JSON.stringify(e.info) })),
      etag: got.etag,
      lastModified: got.lastModified,
      ...(meta === undefined ? {} : { meta: JSON.stringify(meta) }),
    });
    return "updated";
  } catch (err) {
    const why =
      err instanceof Error
        ? err.cause instanceof Error
          ? `${err.message}: ${err.cause.message}`
          : err.message
        : String(err);
    await recordFailure(db, source.id, why);
    return "failed";
  }
}

/** The MVT index, then each collection it lists; collections no longer listed are forgotten. */
async function refreshMvt(db: Db, config: FeedConfig): Promise<Record<string, RefreshOutcome>> {
  const outcomes: Record<string, RefreshOutcome> = {};
  outcomes[MVT_INDEX] = await refreshFeed(
    db,
    {
      id: MVT_INDEX,
      name: "MVT indicators index",
      url: config.mvtIndexUrl,
      parse: (text) => ({ entries: [], meta: { collections: parseMvtIndex(text, config.mvtFilesBaseUrl) } }),
    },
    config,
  );
  const copies = await listCopies(db);
  const index = copies.find((c) => c.id === MVT_INDEX);
  if (!index?.fetched_at) return outcomes;
  const collections = (JSON.parse(index.meta) as { collections?: MvtCollection[] }).collections ?? [];
  for (const c of collections)
    outcomes[c.id] = await refreshFeed(
      db,
      { id: c.id, name: c.name, url: c.url, parse: (text) => ({ entries: parseMvtBundle(text, c) }) },
      config,
    );
  const listed = new Set(collections.map((c) => c.id));
  await dropCopies(
    db,
    copies.filter((c) => c.id.startsWith("mvt:") && !listed.has(c.id)).map((c) => c.id),
  );
  return outcomes;
}

/** Which feeds to keep: those of the enabled connectors (INTEL_CONNECTORS). */
export interface FeedSelection {
  blocklists: boolean;
  mvt: boolean;
}

/** One pass over the selected feeds: each downloaded when its interval has passed. */
export async function refreshFeeds(
  db: Db,
  config: FeedConfig,
  which: FeedSelection = { blocklists: true, mvt: true },
): Promise<Record<string, RefreshOutcome>> {
  const outcomes: Record<string, RefreshOutcome> = {};
  if (which.blocklists)
    for (const source of blocklistSources(config))
      outcomes[source.id] = await refreshFeed(db, source, config);
  return which.mvt ? { ...outcomes, ...(await refreshMvt(db, config)) } : outcomes;
}

/**
 * Runs `refreshFeeds` now and then every minute (each feed only when due) for the selected feeds;
 * nothing when none is selected or INTEL_FEEDS_REFRESH_MINUTES is 0. The stop function ends it.
 */
export function scheduleFeeds(
  db: Db,
  config: FeedConfig,
  which: FeedSelection,
  onError: (err: unknown) => void,
): () => void {
  if (config.feedsRefreshMinutes === 0 || (!which.blocklists && !which.mvt)) return () => {};
  let running = false;
  const pass = () => {
    if (running) return;
    running = true;
    refreshFeeds(db, config, which)
      .catch(onError)
      .finally(() => {
        running = false;
      });
  };
  pass();
  const timer = setInterval(pass, Math.min(60_000, intervalMs(config)));
  timer.unref();
  return () => clearInterval(timer);
}

/** The connectors' view of the copies (FetchContext.feeds). */
export function feedReader(db: Db): FeedReader {
  return {
    async find(prefix, { kinds, values, ipv4 }) {
      const hits = await findEntries(db, prefix, kinds, values, ipv4);
      return hits.map((h) => ({
        feed: h.feed,
        name: h.name,
        kind: h.kind,
        value: h.value,
        info: JSON.parse(h.info) as Record<string, unknown>,
        fetchedAt: h.fetched_at,
        checkedAt: h.checked_at,
      }));
    },
  };
}
