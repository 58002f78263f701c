/**
 * Drives one `bench compare` load against a server that is already running (for perf, strace or
 * a profiler attached from outside): `node bench/compare/drive.ts URL photos|small|rules [in flight] [requests]`.
 */
import { fmt, runConcurrent } from "../lib/measure.ts";
import { postPrepared } from "../lib/multipart.ts";
import { callsFor } from "./calls.ts";

const [url = "", load = "small", inFlight = "4", requests = "400"] = process.argv.slice(2);
const list = await callsFor(load);
const stats = await runConcurrent(Number(requests), Number(inFlight), (i) => {
  const c = list[i % list.length] as (typeof list)[number];
  return postPrepared(url + c.path, c.body);
});
console.log(`${load}: ${fmt(stats.perSecond)} req/s, ${stats.errors} errors`);
