/**
 * Runs in a render thread (piscina, domain/renderer.ts): reads a subject's result from the database
 * with a connection of its own and renders it to JSON bytes, which are moved (not copied) back to
 * the event loop's thread. Connections are opened once per thread and end with it.
 */
import { move, transferableSymbol, valueSymbol } from "piscina";
import { openStore, type Store } from "../store/db.ts";
import { type RenderTask, renderResult } from "./render-task.ts";

export interface ThreadTask extends RenderTask {
  databaseUrl: string;
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

export default async function render(task: ThreadTask) {
  const rendered = await renderResult((await storeFor(task.databaseUrl)).db, task);
  if (!rendered) return null;
  // Moved with its buffer: the other thread gets the bytes without a copy.
  return move({ [transferableSymbol]: rendered.bytes.buffer, [valueSymbol]: rendered });
}
