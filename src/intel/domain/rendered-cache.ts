/**
 * Stored answers kept rendered: the result document's JSON bytes (and exports), keyed by subject
 * and depth and valid for one graph version (bumped in the database by every finished request, so
 * several processes stay consistent). Kept encoded: turning a large string into UTF-8 bytes on every
 * answer cost more than the queries. Bounded in bytes, not only in entries: one large graph's
 * answer is megabytes (INTEL_RENDERED_CACHE_BYTES); least recently used dropped first.
 */
export interface RenderedCache {
  get(key: string, version: string): Buffer | undefined;
  set(key: string, version: string, json: Buffer): void;
  /** Bytes held now. */
  bytes(): number;
}

export function createRenderedCache(maxBytes: number, maxEntries = 1000): RenderedCache {
  const entries = new Map<string, { version: string; json: Buffer }>();
  let held = 0;
  const drop = (key: string) => {
    const old = entries.get(key);
    if (!old) return;
    held -= old.json.length;
    entries.delete(key);
  };
  return {
    get(key, version) {
      const hit = entries.get(key);
      if (hit?.version !== version) return undefined;
      entries.delete(key);
      entries.set(key, hit);
      return hit.json;
    },
    set(key, version, json) {
      drop(key);
      if (json.length > maxBytes) return;
      entries.set(key, { version, json });
      held += json.length;
      while (held > maxBytes || entries.size > maxEntries) drop(entries.keys().next().value as string);
    },
    bytes: () => held,
  };
}
