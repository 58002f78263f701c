/**
 * How V8 collects memory held outside its heap (Buffers: upload chunks, file bytes). By default
 * V8 runs a full collection of the whole heap each time such memory grows by a fixed 64 MB since
 * the last one, whatever the heap's size: a service receiving large uploads then spends more CPU
 * marking its live heap than handling requests (a 2.6 MB photo cost a full collection every few
 * requests; docs/benchmarks.md). Counting that memory within the heap's own growing limit instead
 * collects it as often as the heap itself needs, for some more resident memory between
 * collections. V8 reads the flag when it computes its limits, so it can be set after start.
 */
import v8 from "node:v8";

export function countBuffersInHeapLimit(on: boolean): void {
  v8.setFlagsFromString(
    on ? "--external-memory-accounted-in-global-limit" : "--no-external-memory-accounted-in-global-limit",
  );
}
