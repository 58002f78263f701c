/**
 * Reads kept in memory until anything is committed to the database, by this process or another:
 * a cached answer then costs one tiny statement (the change stamp) instead of a query per read.
 *
 * The change stamp is a value that changes with every commit and never comes back:
 * - SQLite: `data_version` (changes when another connection — another process — commits) with
 *   `total_changes()` (rows this connection changed);
 * - PostgreSQL: `pg_current_snapshot()` (which transactions have completed; any write anywhere in
 *   the cluster changes it; PostgreSQL 13 or later).
 *
 * A value read after a stamp was taken is kept under that stamp and served while the stamp is the
 * same: whatever the value saw, nothing was committed since, so it is still what the database holds
 * (a commit between the stamp and the read changes the stamp, so that value is never served). Each
 * view takes its own stamp when it is made, after the caller's request arrived: a change committed
 * before then (a key revoked, a lookup finished in a worker) is always seen.
 */
import { sql } from "kysely";
import type { Store } from "./db.ts";

/** Reads through one view share the stamp taken when the view was made. */
export interface ReadView {
  /** `load()`'s value for `key`, from memory while nothing was committed since it was loaded. Never mutate it. */
  read<T>(key: string, load: () => Promise<T>): Promise<T>;
}

export interface ReadCache {
  /** A view on the database as of now (one small statement; none when the cache is off). */
  view(): Promise<ReadView>;
  /** Reads served from memory (hits) and from the database (misses) since the process started. */
  counts(): { hits: number; misses: number };
}

/** Every read goes to the database (the cache off, or a caller without one). */
export const DIRECT_READS: ReadView = { read: (_key, load) => load() };

/** The database's change stamp, as defined above. */
export async function changeStamp(store: Store): Promise<string> {
  const query =
    store.dialect === "postgres"
      ? sql<{ stamp: string }>`select pg_current_snapshot()::text as stamp`
      : sql<{
          stamp: string;
        }>`select total_changes() || ':' || data_version as stamp from pragma_data_version`;
  const { rows } = await query.execute(store.db);
  return String(rows[0]?.stamp ?? "");
}

/** A cache of at most `maxEntries` reads (least recently stored dropped first); 0 turns it off. */
export function createReadCache(store: Store, maxEntries: number): ReadCache {
  const counted = { hits: 0, misses: 0 };
  const counts = () => ({ ...counted });
  if (maxEntries <= 0) return { view: async () => DIRECT_READS, counts };
  const entries = new Map<string, { stamp: string; value: unknown }>();
  return {
    counts,
    async view() {
      const stamp = await changeStamp(store);
      return {
        async read<T>(key: string, load: () => Promise<T>): Promise<T> {
          const hit = entries.get(key);
          if (hit?.stamp === stamp) {
            counted.hits++;
            return hit.value as T;
          }
          counted.misses++;
          const value = await load();
          entries.delete(key);
          entries.set(key, { stamp, value });
          if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
          return value;
        },
      };
    },
  };
}
