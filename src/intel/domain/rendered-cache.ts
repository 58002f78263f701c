/**
 * Rendered results kept in memory: the JSON bytes of result documents and exports, keyed by what
 * was rendered and valid for one graph version (bumped in the database by every finished request,
 * so several processes stay consistent). Kept encoded: turning a large string into UTF-8 bytes on
 * every answer cost more than the queries. Bounded in bytes, not only in entries: one large
 * graph's answer is megabytes (INTEL_RENDERED_CACHE_BYTES); least recently used dropped first.
 */
export interface Rendered {
  bytes: Buffer;
  contentType: string;
}

export interface RenderedCache {
  get(key: string, version: string): Rendered | undefined;
  set(key: string, version: string, value: Rendered): void;
  /** Bytes held now. */
  bytes(): number;
}

export function createRenderedCache(maxBytes: number, maxEntries = 1000): RenderedCache {
  const entries = new Map<string, { version: string; value: Rendered }>();
  let held = 0;
  const drop = (key: string) => {
    const old = entries.get(key);
    if (!old) return;
    held -= old.value.bytes.length;
    entries.delete(key);
  };
  return {
    get(key, version) {
      const hit = entries.get(key);
      if (hit?.version !== version) return undefined;
      entries.delete(key);
      entries.set(key, hit);
      return hit.value;
    },
    set(key, version, value) {
      drop(key);
      if (value.bytes.length > maxBytes) return;
      entries.set(key, { version, value });
      held += value.bytes.length;
      while (held > maxBytes || entries.size > maxEntries) drop(entries.keys().next().value as string);
    },
    bytes: () => held,
  };
}
