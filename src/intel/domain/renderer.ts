/**
 * Result documents and exports rendered off the event loop: reading a large graph, building its
 * document or STIX bundle and encoding it took seconds of one thread (a 30,000-entity STIX export
 * held intel for 1.7–1.9 s), so render processes (INTEL_RENDER_PROCESSES) do it with their own
 * database connections and send the bytes back in slices, kept as slices (common/chunks.ts). Rendered bytes are kept per graph version in a
 * byte-bounded cache (INTEL_RENDERED_CACHE_BYTES), and one render serves every concurrent asker.
 * Processes end after RENDER_IDLE_MS without work, giving back what a large render took.
 */
import { sliced } from "../../common/chunks.ts";
import type { IntelConfig } from "../config.ts";
import type { Subject } from "../model/graph.ts";
import type { Store } from "../store/db.ts";
import type { ExportContext, ExportFormat } from "./export/index.ts";
import { createRenderPool } from "./render-pool.ts";
import { RENDER_CHUNK_BYTES, type RenderedChunks, type RenderTask, renderResult } from "./render-task.ts";
import { createRenderedCache, type Rendered } from "./rendered-cache.ts";
import { type DocumentRenderer, subjectKey } from "./result-reads.ts";

/** How long a render process stays without work before it ends. */
export const RENDER_IDLE_MS = 30_000;

/** `document`: the subject's result document without sources, as of graph `version` (undefined: nothing stored). */
export interface Renderer extends DocumentRenderer {
  /** The subject's result exported in `format`, as of graph `version` (undefined: nothing stored). */
  exported(
    subject: Subject,
    depth: number,
    format: ExportFormat,
    context: ExportContext,
    version: string,
  ): Promise<Rendered | undefined>;
  /** Bytes the cache holds now. */
  cachedBytes(): number;
  close(): Promise<void>;
}

type RenderConfig = Pick<
  IntelConfig,
  "databaseUrl" | "resultMaxEntities" | "renderedCacheBytes" | "renderProcesses"
>;

/** Renders in processes, or here when the database lives in this process's memory (no other connection sees it). */
function renderWith(store: Store, config: RenderConfig) {
  if (config.databaseUrl === "sqlite::memory:")
    return { run: renderHere(store), close: async () => undefined };
  return createRenderPool(config.databaseUrl, config.renderProcesses, RENDER_IDLE_MS);
}

/** Rendering in this process, sliced as the render processes' results are. */
const renderHere =
  (store: Store) =>
  async (task: RenderTask): Promise<RenderedChunks | null> => {
    const result = await renderResult(store.db, task);
    return result && { chunks: sliced(result.bytes, RENDER_CHUNK_BYTES), contentType: result.contentType };
  };

export function createRenderer(store: Store, config: RenderConfig): Renderer {
  const cache = createRenderedCache(config.renderedCacheBytes);
  const renderers = renderWith(store, config);
  const running = new Map<string, Promise<Rendered | undefined>>();

  /** The cached bytes of `key` at `version`, or one render shared by everyone asking meanwhile. */
  function rendered(key: string, version: string, task: RenderTask): Promise<Rendered | undefined> {
    const hit = cache.get(key, version);
    if (hit) return Promise.resolve(hit);
    const id = `${version}\u0000${key}`;
    let pending = running.get(id);
    if (!pending) {
      pending = renderers
        .run(task)
        .then((result) => {
          if (!result) return undefined;
          const value = { bytes: result.chunks, contentType: result.contentType };
          cache.set(key, version, value);
          return value;
        })
        .finally(() => running.delete(id));
      running.set(id, pending);
    }
    return pending;
  }

  const maxEntities = config.resultMaxEntities;
  return {
    async document(subject, depth, version) {
      const key = `document|${depth}|${subjectKey(subject)}`;
      return (await rendered(key, version, { subject, depth, maxEntities }))?.bytes;
    },
    exported(subject, depth, format, context, version) {
      const key = `${format}|${depth}|${subjectKey(subject)}`;
      return rendered(key, version, { subject, depth, maxEntities, export: { format, context } });
    },
    cachedBytes: () => cache.bytes(),
    close: () => renderers.close(),
  };
}
