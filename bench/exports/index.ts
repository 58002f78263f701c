/**
 * Intel while large exports run: how long its event loop stalls (a client probing `GET /` every
 * 10 ms, and the process's own `nodejs_eventloop_lag_*` from /metrics) while two clients export a
 * 30,000-entity result as STIX and MISP, each export rendered anew (the graph version is bumped
 * between them, so the rendered-answer cache never answers), and a third client reads the same
 * result as a bulk ask's results page (depth 1, `?results=1`), rendered anew each time too; then
 * resident memory once the process
 * has been idle past the render processes' idle end, against the same process fresh. On SQLite and
 * PostgreSQL. Issue 27 measured 1.7–1.9 s of stall per STIX export before renders left the loop.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { RENDER_IDLE_MS } from "../../src/intel/domain/renderer.ts";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import { bumpGraphVersion } from "../../src/intel/store/requests.ts";
import { type DbKind, freshDatabase, postgresSkipReason } from "../../test/helpers/intel-server.ts";
import { loadavg } from "../lib/cpu.ts";
import { ROOT, seedLargeResult } from "../lib/large-result.ts";
import { fmt, memoryOf, percentiles } from "../lib/measure.ts";
import { startChildServer } from "../lib/server.ts";

const ENTITIES = Number(process.env.BENCH_EXPORT_ENTITIES ?? 30_000);
const EXPORTS_PER_CLIENT = Number(process.env.BENCH_EXPORTS ?? 2);

/** Latencies of `GET /` sent one after another, 10 ms apart, until `done` settles. */
async function probe(url: string, done: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  while (!finished) {
    const t = performance.now();
    const res = await request(`${url}/`);
    await res.body.arrayBuffer();
    latencies.push(performance.now() - t);
    await sleep(10);
  }
  return latencies;
}

/** The process's own event loop delay since the last scrape (prom-client resets it at each one), in ms. */
async function loopLag(url: string): Promise<{ p99: number; max: number }> {
  const res = await request(`${url}/metrics`);
  const text = await res.body.text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)`, "m").exec(text)?.[1] ?? Number.NaN) * 1000;
  return { p99: value("nodejs_eventloop_lag_p99_seconds"), max: value("nodejs_eventloop_lag_max_seconds") };
}

/** Two clients, each exporting EXPORTS_PER_CLIENT times (STIX, MISP, …), each export rendered anew; a third reading batch results. */
async function exportLoad(url: string, store: Store, seeded: { key: string; requestId: string }) {
  const headers = { authorization: `Token ${seeded.key}` };
  const sizes: number[] = [];
  // No client-side time limit: on a loaded machine one render has taken minutes.
  const get = async (path: string) => {
    const res = await request(`${url}${path}`, { headers, headersTimeout: 0, bodyTimeout: 0 });
    const body = await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
    return body;
  };
  const client = async (formats: string[]) => {
    for (let i = 0; i < EXPORTS_PER_CLIENT; i++) {
      await bumpGraphVersion(store.db);
      sizes.push(
        (await get(`/api/request/${seeded.requestId}/?format=${formats[i % formats.length]}`)).byteLength,
      );
    }
  };
  const batch = await batchOfTheResult(url, headers);
  const batchClient = async () => {
    for (let i = 0; i < EXPORTS_PER_CLIENT; i++) {
      await bumpGraphVersion(store.db);
      const page = await get(`/api/batches/${batch}/?results=1`);
      const parsed = JSON.parse(Buffer.from(page).toString()) as {
        items: Array<{ result?: { entities: unknown[] } }>;
      };
      if ((parsed.items[0]?.result?.entities.length ?? 0) < ENTITIES - 1)
        throw new Error("a batch result without its entities");
      sizes.push(page.byteLength);
    }
  };
  const started = performance.now();
  await Promise.all([client(["stix", "misp"]), client(["misp", "stix"]), batchClient()]);
  return { seconds: (performance.now() - started) / 1000, sizes };
}

/** A bulk ask (depth 1) for the large result's subject, answered from storage at once: its batch id. */
async function batchOfTheResult(url: string, headers: Record<string, string>): Promise<string> {
  const res = await request(`${url}/api/requests/`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({
      subjects: [{ super_type: ROOT.superType, type: ROOT.type, value: ROOT.name }],
      depth: 1,
    }),
  });
  const body = (await res.body.json()) as { id: string; finished: boolean };
  if (res.statusCode !== 202 || !body.finished) throw new Error(`the bulk ask answered ${res.statusCode}`);
  return body.id;
}

async function run(kind: DbKind): Promise<void> {
  const db = await freshDatabase(kind);
  const store = await openStore(db.url);
  try {
    const seeded = await seedLargeResult(store, ENTITIES);
    const server = await startChildServer(
      ["intel", "serve", "--no-worker"],
      { DATABASE_URL: db.url, LOG_LEVEL: "warn", INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0" },
      "/api/schema/",
      "INTEL_PORT",
    );
    try {
      await sleep(2000);
      const fresh = memoryOf(server.pid).rssMb;
      // The floor on a shared machine: the same probe and the same histogram with nothing running.
      await loopLag(server.url);
      const quiet = percentiles(await probe(server.url, sleep(10_000)));
      const quietLag = await loopLag(server.url);
      console.log(
        `${kind}: with nothing running, GET / p99 ${fmt(quiet.p99)} ms; the process's event loop delay p99 ${fmt(quietLag.p99)} ms, max ${fmt(quietLag.max)} ms`,
      );
      const load = exportLoad(server.url, store, seeded);
      const [latencies, done] = await Promise.all([probe(server.url, load), load]);
      const lag = await loopLag(server.url);
      const peak = memoryOf(server.pid).rssMb;
      const { p50, p99 } = percentiles(latencies);
      console.log(
        `${kind}: ${done.sizes.length} exports and batch result pages of ${ENTITIES} entities (${fmt(Math.max(...done.sizes) / 1e6)} MB largest) in ${fmt(done.seconds)} s by 3 clients`,
      );
      console.log(
        `  GET / while they ran: p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms, max ${fmt(Math.max(...latencies))} ms (${latencies.length} probes)`,
      );
      console.log(`  the process's event loop delay: p99 ${fmt(lag.p99)} ms, max ${fmt(lag.max)} ms`);
      await sleep(RENDER_IDLE_MS + 5000);
      const idle = memoryOf(server.pid).rssMb;
      console.log(
        `  resident memory: fresh idle ${fmt(fresh)} MB, peak ${fmt(peak)} MB, idle ${(RENDER_IDLE_MS + 5000) / 1000} s after ${fmt(idle)} MB: ×${fmt(idle / fresh, 2)} (load average ${loadavg()})`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    await store.close();
    await db.drop();
  }
}

const DATABASES = (process.env.BENCH_EXPORT_DATABASES ?? "sqlite,postgres").split(",");
console.log(`intel exports benchmark — ${ENTITIES} entities, load average ${loadavg()}`);
if (DATABASES.includes("sqlite")) await run("sqlite");
if (!DATABASES.includes("postgres")) console.log("postgres: not asked (BENCH_EXPORT_DATABASES)");
else if (await postgresSkipReason().catch(() => "unreachable"))
  console.log("postgres: skipped (not reachable)");
else await run("postgres");
