/**
 * Frees the buffers of large uploads with a young-generation collection. Node's HTTP parser copies
 * every piece of a body into a fresh buffer (64 KB); V8 counts them as external memory and, once
 * 64 MB of them have piled up without a young collection (an upload allocates few JS objects, so
 * none comes by itself), it marks and compacts the whole heap ("external memory pressure"): one
 * every 2–3 uploads of 10 MB, 30–120 ms each, partly in the middle of the next upload. A scavenge
 * after every UPLOAD_BYTES_PER_COLLECTION received frees the same dead buffers for 1–5 ms
 * (docs/benchmarks.md, "files: antivirus"). Only large uploads count (UPLOAD_COUNTED_FROM): an
 * explicit young collection also makes V8 start a full marking soon after, so for photos of 1–5 MB
 * the collections cost more than they saved (10 mark-compacts in 80 photos against 3 without).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Collect = (options: { type: "minor"; execution: "async" }) => Promise<void>;

/** V8's `gc`, taken from a context made while the flag was on; no other context or thread sees it. */
function takeCollector(): Collect {
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as Collect;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}

const collect = takeCollector();

/** Below V8's 64 MB of external growth, so the buffers are gone before that limit is reached. */
export const UPLOAD_BYTES_PER_COLLECTION = 24 * 1024 * 1024;

/** An upload counts once it has brought this many bytes: all of them then, and each chunk after. */
export const UPLOAD_COUNTED_FROM = 8 * 1024 * 1024;

/** The bytes of a chunk that count toward a collection: the upload had `before`, now has `now`. */
export function bytesCounted(before: number, now: number): number {
  if (now < UPLOAD_COUNTED_FROM) return 0;
  return before < UPLOAD_COUNTED_FROM ? now : now - before;
}

let receivedSinceCollection = 0;

/** Notes an upload growing from `before` to `now` bytes; past the threshold (all uploads together), schedules a young collection. */
export function noteUploadProgress(before: number, now: number): void {
  receivedSinceCollection += bytesCounted(before, now);
  if (receivedSinceCollection < UPLOAD_BYTES_PER_COLLECTION) return;
  receivedSinceCollection = 0;
  void collect({ type: "minor", execution: "async" });
}
