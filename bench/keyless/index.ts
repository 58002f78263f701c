/**
 * The offline intel data's cost: resident memory the IP database adds to a process, how long it
 * takes to read, and what a lookup (fetch + normalize, as the worker runs them) adds to a request.
 * Measured in a child process started with --expose-gc, so the resident figures are after a GC;
 * then lookups in the local feed copies (feeds.ts).
 * Targets: ≤ 150 MB of RSS, ≤ 1 ms per lookup (the median is checked: on a shared machine the
 * tail is the scheduler's).
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import { openDatabase } from "../../src/intel/connectors/iplocation/database.ts";
import { iplocation } from "../../src/intel/connectors/iplocation/index.ts";
import { feedLookups } from "./feeds.ts";

const LOOKUPS = Number(process.env.BENCH_KEYLESS_LOOKUPS ?? 50_000);
const MB = (bytes: number) => bytes / 1024 / 1024;

function settledRss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

/** Public addresses spread over the whole space, IPv4 and IPv6 (one in five). */
function address(i: number): { type: string; value: string } {
  if (i % 5 === 4) return { type: "IPV6", value: `2a0${i % 10}:${(i * 7919) % 65536}::${i % 65536}` };
  const a = 1 + ((i * 7919) % 222);
  return {
    type: "IPV4",
    value: `${a === 10 || a === 127 ? 11 : a}.${(i >> 8) % 256}.${i % 256}.${(i * 13) % 254}`,
  };
}

async function child(): Promise<void> {
  const before = settledRss();
  const t = performance.now();
  await openDatabase();
  const loadMs = performance.now() - t;
  const after = settledRss();
  const signal = AbortSignal.timeout(600_000);
  const ctx = { http: { get: () => Promise.reject(), post: () => Promise.reject() }, signal };
  const times: number[] = [];
  for (let i = 0; i < LOOKUPS; i++) {
    const subject = { superType: "OBSERVABLE", ...address(i) };
    const s = performance.now();
    const raw = await iplocation.fetch(subject, {}, ctx);
    if (raw) iplocation.normalize(raw, subject);
    times.push(performance.now() - s);
  }
  times.sort((x, y) => x - y);
  const pick = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  console.log(`database read in ${loadMs.toFixed(0)} ms`);
  console.log(
    `RSS ${MB(before).toFixed(0)} MB before, ${MB(after).toFixed(0)} MB after: +${MB(after - before).toFixed(0)} MB (target ≤ 150); peak while reading ${MB(process.resourceUsage().maxRSS * 1024).toFixed(0)} MB`,
  );
  console.log(
    `lookup (fetch + normalize), ${LOOKUPS} addresses: median ${(pick(0.5) * 1000).toFixed(0)} µs, p90 ${(pick(0.9) * 1000).toFixed(0)} µs, p99 ${(pick(0.99) * 1000).toFixed(0)} µs, max ${pick(1).toFixed(2)} ms (target ≤ 1 ms)`,
  );
  console.log(
    `machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores (p99 and max follow it)`,
  );
  const feedsMedianMs = await feedLookups();
  if (MB(after - before) > 150 || pick(0.5) > 1 || feedsMedianMs > 1) process.exitCode = 1;
}

if (process.argv.includes("--child")) await child();
else {
  const r = spawnSync(process.execPath, ["--expose-gc", import.meta.filename, "--child"], {
    stdio: "inherit",
  });
  process.exitCode = r.status ?? 1;
}
