/**
 * A/B of two Loupe files servers started with different environments (same code), in alternating
 * rounds on one `bench compare` load; prints req/s and server CPU per request (medians), the CPU
 * figure being the one that holds on a shared machine. Settings as JSON in BENCH_AB_A / BENCH_AB_B:
 * `node bench/compare/ab.ts small|photos|rules [in flight] [rounds]`.
 */
import { fmt, runConcurrent } from "../lib/measure.ts";
import { postPrepared } from "../lib/multipart.ts";
import { startChildServer } from "../lib/server.ts";
import { callsFor } from "./calls.ts";
import { treeCpuSeconds } from "./peer.ts";

const [load = "small", inFlight = "4", rounds = "5"] = process.argv.slice(2);
const envs = {
  A: JSON.parse(process.env.BENCH_AB_A ?? "{}") as Record<string, string>,
  B: JSON.parse(process.env.BENCH_AB_B ?? "{}") as Record<string, string>,
};
const list = await callsFor(load);
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0;
const results: Record<string, { rps: number[]; cpu: number[] }> = {
  A: { rps: [], cpu: [] },
  B: { rps: [], cpu: [] },
};
// One server at a time, a fresh one per round, so neither side inherits the other's warm state.
for (let r = 0; r < Number(rounds); r++) {
  for (const [name, env] of Object.entries(envs)) {
    const server = await startChildServer(["files", "serve"], { CLAMD_SOCKET: "/nonexistent", ...env });
    try {
      const post = (i: number) => {
        const c = list[i % list.length] as (typeof list)[number];
        return postPrepared(server.url + c.path, c.body);
      };
      await runConcurrent(list.length, Number(inFlight), post);
      const cpu0 = treeCpuSeconds(server.pid);
      const total = list.length * (load === "photos" ? 4 : 8);
      const stats = await runConcurrent(total, Number(inFlight), post);
      const side = results[name] as { rps: number[]; cpu: number[] };
      side.rps.push(stats.perSecond);
      side.cpu.push(((treeCpuSeconds(server.pid) - cpu0) * 1000) / total);
    } finally {
      await server.stop();
    }
  }
}
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name} ${JSON.stringify(envs[name as "A" | "B"])}: ${fmt(median(r.rps))} req/s, ${fmt(median(r.cpu), 2)} CPU ms/req (rounds: ${r.cpu.map((c) => fmt(c, 1)).join(" ")})`,
  );
}
