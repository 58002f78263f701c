/**
 * One render of a stored result to JSON bytes: the result document without sources (they carry
 * ages, filled in per answer), or an export of the document with them. Pure reads and CPU: run in a
 * render process (render-process.ts) so no graph, however large, holds the event loop.
 */
import type { Subject } from "../model/graph.ts";
import type { Store } from "../store/db.ts";
import { buildDocument } from "./document.ts";
import { type ExportContext, type ExportFormat, exportDocument } from "./export/index.ts";
import { neighbourhood, readDocument } from "./result-reads.ts";

/** What to render: the document without sources (they carry ages, filled in per answer), or an export. */
export interface RenderTask {
  subject: Subject;
  depth: number;
  maxEntities: number;
  export?: { format: ExportFormat; context: ExportContext };
}

/** A rendered result: JSON bytes and their media type. */
export interface RenderedResult {
  bytes: Uint8Array;
  contentType: string;
}

/** A rendered result as it reaches the event loop: slices of at most RENDER_CHUNK_BYTES. */
export interface RenderedChunks {
  chunks: Buffer[];
  contentType: string;
}

/** Bytes per IPC message from a render process: small enough that receiving one is about a millisecond. */
export const RENDER_CHUNK_BYTES = 256 * 1024;

/** UTF-8 bytes of a value's JSON. */
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** The task's bytes, or null when nothing is stored for the subject. */
export async function renderResult(db: Store["db"], task: RenderTask): Promise<RenderedResult | null> {
  const { subject, depth, maxEntities } = task;
  if (task.export) {
    // Exports keep each entity's exact TLP 2.0 level (AMBER+STRICT), not Threatr's four words.
    const doc = await readDocument(db, subject, depth, maxEntities, { exactMarkings: true });
    if (!doc) return null;
    const exported = exportDocument(task.export.format, doc, task.export.context);
    return { bytes: encode(exported.body), contentType: exported.contentType };
  }
  const hood = await neighbourhood(db, subject, depth, maxEntities);
  return hood ? { bytes: encode(buildDocument(hood, {})), contentType: "application/json" } : null;
}
