/**
 * A render process (domain/render-pool.ts): reads a subject's stored result with a database
 * connection of its own and renders it to JSON bytes, one task at a time, sent back over IPC in
 * slices of RENDER_CHUNK_BYTES (one 25 MB message cost the receiving event loop 110–160 ms of CPU
 * to join and decode; a slice costs it about a millisecond), then the media type. A
 * process, not a thread: a thread that ended kept its heap's pages in this process (300 MB after
 * one large export), an exited process gives everything back.
 */
import { sliced } from "../../common/chunks.ts";
import { openStore, type Store } from "../store/db.ts";
import { RENDER_CHUNK_BYTES, type RenderTask, renderResult } from "./render-task.ts";

export interface RenderMessage {
  id: number;
  databaseUrl: string;
  task: RenderTask;
}

const stores = new Map<string, Promise<Store>>();

function storeFor(url: string): Promise<Store> {
  let store = stores.get(url);
  if (!store) {
    store = openStore(url, { migrate: false });
    stores.set(url, store);
  }
  return store;
}

/** Sends a reply; the pool gone meanwhile (its channel closed) ends this process quietly. */
function reply(message: object): void {
  process.send?.(message, undefined, undefined, (err) => {
    if (err) process.exit(0);
  });
}

process.on("message", async (message: RenderMessage) => {
  try {
    const result = await renderResult((await storeFor(message.databaseUrl)).db, message.task);
    if (!result) return reply({ id: message.id, result: null });
    // Messages on one channel arrive in order: the slices, then the end with the media type.
    for (const chunk of sliced(result.bytes, RENDER_CHUNK_BYTES)) reply({ id: message.id, chunk });
    reply({ id: message.id, result: { contentType: result.contentType } });
  } catch (err) {
    reply({ id: message.id, error: err instanceof Error ? err.message : String(err) });
  }
});
// The pool closing the channel (or dying) ends this process.
process.on("disconnect", () => process.exit(0));
