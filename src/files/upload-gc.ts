/**
 * Frees the buffers of large uploads with a young-generation collection. Node's HTTP parser copies
 * every piece of a body into a fresh buffer (64 KB); V8 counts them as external memory and, once
 * 64 MB of them have piled up without a young collection (an upload allocates few JS objects, so
 * none comes by itself), it marks and compacts the whole heap ("external memory pressure"): one
 * every 2–3 uploads of 10 MB, 30–120 ms each, partly in the middle of the next upload. A scavenge
 * after every UPLOAD_BYTES_PER_COLLECTION received frees the same dead buffers for 1–5 ms
 * (docs/benchmarks.md, "files: antivirus").
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

let receivedSinceCollection = 0;

/** Counts body bytes received (all uploads together); past the threshold, schedules a young collection. */
export function noteUploadBytes(bytes: number): void {
  receivedSinceCollection += bytes;
  if (receivedSinceCollection < UPLOAD_BYTES_PER_COLLECTION) return;
  receivedSinceCollection = 0;
  void collect({ type: "minor", execution: "async" });
}
