/**
 * Stored answers kept rendered: the result document's JSON bytes, keyed by subject and depth and
 * valid for one graph version (bumped in the database by every finished request, so several
 * processes stay consistent). Kept encoded: turning a large string into UTF-8 bytes on every answer
 * cost more than the queries. Least recently stored dropped first.
 */
export interface RenderedCache {
  get(key: string, version: string): Buffer | undefined;
  set(key: string, version: string, json: Buffer): void;
}

export function createRenderedCache(max = 1000): RenderedCache {
  const entries = new Map<string, { version: string; json: Buffer }>();
  return {
    get(key, version) {
      const hit = entries.get(key);
      return hit?.version === version ? hit.json : undefined;
    },
    set(key, version, json) {
      entries.delete(key);
      entries.set(key, { version, json });
      if (entries.size > max) entries.delete(entries.keys().next().value as string);
    },
  };
}
