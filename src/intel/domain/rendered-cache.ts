/**
 * Rendered results kept in memory: the JSON bytes of result documents and exports, keyed by what
 * was rendered and valid for one graph version (bumped in the database by every finished request,
 * so several processes stay consistent). Kept encoded: turning a large string into UTF-8 bytes on
 * every answer cost more than the queries. Bounded in bytes, not only in entries: one large
 * graph's answer is megabytes (INTEL_RENDERED_CACHE_BYTES); least recently used dropped first.
 */
import { type Chunks, sizeOf } from "../../common/chunks.ts";

export interface Rendered {
  /** As the render process sent them (common/chunks.ts). */
  bytes: Chunks;
  contentType: string;
}

export interface RenderedCache {
  get(key: string, version: string): Rendered | undefined;
  set(key: string, version: string, value: Rendered): void;
  /** Bytes held now. */
  bytes(): number;
}

export function createRenderedCache(maxBytes: number, maxEntries = 1000): RenderedCache {
  const entries = new Map<string, { version: string; value: Rendered; size: number }>();
  let held = 0;
  const drop = (key: string) => {
    const old = entries.get(key);
    if (!old) return;
    held -= old.size;
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
      const size = sizeOf(value.bytes);
      if (size > maxBytes) return;
      entries.set(key, { version, value, size });
      held += size;
      while (held > maxBytes || entries.size > maxEntries) drop(entries.keys().next().value as string);
    },
    bytes: () => held,
  };
}
