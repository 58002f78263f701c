/**
 * Intel: cached 200 answers per second and p99 for a root with 50 neighbours and 20 events, asked
 * as Colander asks (gzip accepted, as python-requests does; also measured without gzip), on
 * SQLite and PostgreSQL, beside a trivial route of the same server; then the latency from
 * enqueue to 200 with 10 vendors answering in 200 ms each (parallel fan-out, not sequential); then
 * lookups per second with 1 and 2 worker processes on vendor-bound load. Rounds alternate the
 * trivial and the cached route, and each phase reports CPU time per answer (the server's, and its
 * PostgreSQL backends'): on a shared machine that moves less than req/s.
 */
import { gunzipSync } from "node:zlib";
import pg from "pg";
import { request } from "undici";
import { readCommonConfig } from "../../src/common/config.ts";
import { createLogger } from "../../src/common/logger.ts";
import { readIntelConfig } from "../../src/intel/config.ts";
import { virustotal } from "../../src/intel/connectors/virustotal/index.ts";
import { buildIntelServer, openIntelServices, startWorker } from "../../src/intel/server.ts";
import { createToken, createUser } from "../../src/intel/store/accounts.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { startFakeVirusTotal, VT_KEY } from "../../test/helpers/fake-virustotal.ts";
import { type DbKind, freshDatabase, postgresSkipReason } from "../../test/helpers/intel-server.ts";
import { cpuDuring, loadavg } from "../lib/cpu.ts";
import { fmt, percentiles } from "../lib/measure.ts";
import { type ChildServer, startChildServer } from "../lib/server.ts";
import { workersScaling } from "../lib/workers.ts";
import { ROOT, seed } from "./seed.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The server's PostgreSQL connections carry this name: their backends' CPU is counted. */
const APP_NAME = "bench-intel-server";

interface Phase {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time per answer: the server process's, and its PostgreSQL backends' (0 on SQLite). */
  serverCpuUs: number;
  databaseCpuUs: number;
}

async function load(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string },
): Promise<Omit<Phase, "serverCpuUs" | "databaseCpuUs">> {
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const res = await request(url, init);
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { perSecond: latencies.length / SECONDS, ...percentiles(latencies), errors };
}

/** The PostgreSQL backends serving connections named `name` (none on SQLite). */
async function backendsOf(url: string, name: string): Promise<number[]> {
  if (!url.startsWith("postgres")) return [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database() and application_name = $1",
      [name],
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

async function measured(server: BenchServer, run: () => ReturnType<typeof load>): Promise<Phase> {
  const backends = () => backendsOf(server.dbUrl, server.appName);
  const outer = await cpuDuring(
    () => [server.pid],
    async () => cpuDuring(backends, run),
  );
  const stats = outer.result.result;
  const answers = stats.perSecond * SECONDS;
  return {
    ...stats,
    serverCpuUs: (outer.cpuSeconds * 1e6) / answers,
    databaseCpuUs: (outer.result.cpuSeconds * 1e6) / answers,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const cpuText = (p: Phase) =>
  `${fmt(p.serverCpuUs, 0)}${p.databaseCpuUs > 0 ? ` + db ${fmt(p.databaseCpuUs, 0)}` : ""} µs CPU`;

function printPhase(label: string, cached: Phase, trivial: Phase): void {
  console.log(
    `  ${label.padEnd(16)} cached 200: ${fmt(cached.perSecond, 0)} req/s, p50 ${fmt(cached.p50)} ms, p99 ${fmt(cached.p99)} ms, ${cpuText(cached)} (errors ${cached.errors}) | ratio ${fmt(trivial.perSecond / cached.perSecond, 2)}×, CPU ${fmt((cached.serverCpuUs + cached.databaseCpuUs) / trivial.serverCpuUs, 2)}×`,
  );
}

/** The server's read cache counters (`/metrics`): hits and misses so far. */
async function readCacheCounts(url: string): Promise<{ hits: number; misses: number }> {
  const text = await (await request(`${url}/metrics`)).body.text();
  const count = (result: string) =>
    Number(
      new RegExp(`intel_read_cache_reads_total\\{result="${result}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? 0,
    );
  return { hits: count("hit"), misses: count("miss") };
}

/** A server on the seeded database, its PostgreSQL connections named `appName`. */
type BenchServer = ChildServer & { dbUrl: string; appName: string };

async function startServer(
  dbUrl: string,
  appName: string,
  env: Record<string, string>,
): Promise<BenchServer> {
  const url = dbUrl.startsWith("postgres") ? withAppName(dbUrl, appName) : dbUrl;
  const server = await startChildServer(
    ["intel", "serve", "--no-worker"],
    { DATABASE_URL: url, INTEL_CONNECTORS: "virustotal", INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0", ...env },
    "/",
    "INTEL_PORT",
  );
  return Object.assign(server, { dbUrl, appName });
}

async function checkSeedServed(url: string, post: Parameters<typeof load>[1]): Promise<void> {
  const check = await request(`${url}/api/request/`, post);
  const bytes = Buffer.from(await check.body.arrayBuffer());
  const text = (check.headers["content-encoding"] === "gzip" ? gunzipSync(bytes) : bytes).toString("utf8");
  const doc = JSON.parse(text) as { entities: unknown[]; events: unknown[] };
  if (check.statusCode !== 200 || doc.entities.length !== 50 || doc.events.length !== 20)
    throw new Error("seed not served");
}

/**
 * Rounds alternate the trivial route, the cached answer with the read cache off
 * (INTEL_READ_CACHE_ENTRIES=0: every read from the database, as before it) and with it on.
 */
async function cachedAnswers(kind: DbKind): Promise<void> {
  const db = await freshDatabase(kind);
  const servers: BenchServer[] = [];
  try {
    const key = await seed(db.url);
    servers.push(await startServer(db.url, APP_NAME, {}));
    servers.push(await startServer(db.url, `${APP_NAME}-direct`, { INTEL_READ_CACHE_ENTRIES: "0" }));
    const [withCache, direct] = servers as [BenchServer, BenchServer];
    const body = JSON.stringify({ super_type: "OBSERVABLE", type: "DOMAIN", value: ROOT.name });
    // As Colander asks: python-requests sends `Accept-Encoding: gzip, deflate` on every call.
    const post = {
      method: "POST",
      headers: {
        authorization: `Token ${key}`,
        "content-type": "application/json",
        "accept-encoding": "gzip, deflate",
      },
      body,
    };
    const identity = { ...post, headers: { ...post.headers, "accept-encoding": "identity" } };
    for (const s of servers) for (const p of [post, identity]) await checkSeedServed(s.url, p);
    await load(`${withCache.url}/`, { method: "GET" }); // warm-up
    const runs: Array<{ trivial: Phase; on: Phase; off: Phase; identity: Phase }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const trivial = await measured(withCache, () => load(`${withCache.url}/`, { method: "GET" }));
      const off = await measured(direct, () => load(`${direct.url}/api/request/`, post));
      const before = await readCacheCounts(withCache.url);
      const on = await measured(withCache, () => load(`${withCache.url}/api/request/`, post));
      const after = await readCacheCounts(withCache.url);
      const plain = await measured(withCache, () => load(`${withCache.url}/api/request/`, identity));
      const hits = after.hits - before.hits;
      const share = hits / Math.max(1, hits + after.misses - before.misses);
      console.log(
        `${kind} round ${round} (load ${loadavg()}): trivial GET /: ${fmt(trivial.perSecond, 0)} req/s, p99 ${fmt(trivial.p99)} ms, ${cpuText(trivial)}`,
      );
      printPhase("read cache off", off, trivial);
      printPhase("read cache on", on, trivial);
      printPhase("on, no gzip", plain, trivial);
      console.log(`  read cache on: ${fmt(share * 100)} % of its reads from memory`);
      runs.push({ trivial, on, off, identity: plain });
    }
    for (const which of ["off", "on", "identity"] as const)
      console.log(
        `${kind} median of ${ROUNDS}, ${which === "identity" ? "read cache on, not gzipped" : `read cache ${which}`}: cached ${fmt(median(runs.map((r) => r[which].perSecond)), 0)} req/s, p99 ${fmt(median(runs.map((r) => r[which].p99)))} ms, ratio ${fmt(median(runs.map((r) => r.trivial.perSecond / r[which].perSecond)), 2)}× (target ${kind === "sqlite" ? "3" : "4"}×, p99 ≤ 50 ms)`,
      );
  } finally {
    for (const s of servers) await s.stop();
    await db.drop();
  }
}

const withAppName = (url: string, name: string) => {
  const u = new URL(url);
  u.searchParams.set("application_name", name);
  return u.toString();
};

async function fanoutLatency(): Promise<void> {
  const vt = await startFakeVirusTotal({});
  vt.delayMs = 200;
  const db = await freshDatabase("sqlite");
  const connectors = Array.from({ length: 10 }, (_, i) => ({ ...virustotal, id: `vendor${i}` }));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    INTEL_RETRY_AFTER: "1",
    INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0",
  };
  for (const c of connectors) env[`INTEL_VENDOR_URL_${c.id.toUpperCase()}`] = vt.url;
  const services = await openIntelServices(readIntelConfig(env), connectors);
  startWorker(services);
  const app = await buildIntelServer({
    common: readCommonConfig(env),
    services,
    logger: createLogger("silent"),
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  try {
    for (const c of connectors) await addCredentials(services.store.db, c.id, { api_key: VT_KEY });
    const user = await createUser(services.store.db, "fan", "fan-password", false);
    const { key } = await createToken(services.store.db, user.id);
    const headers = { authorization: `Token ${key}`, "content-type": "application/json" };
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const body = JSON.stringify({
        super_type: "OBSERVABLE",
        type: "MD5",
        value: `${i.toString(16).padStart(2, "0")}${"b".repeat(30)}`,
      });
      const t = performance.now();
      for (;;) {
        const res = await request(`${url}/api/request/`, { method: "POST", headers, body });
        await res.body.arrayBuffer();
        if (res.statusCode === 200) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      times.push(performance.now() - t);
    }
    const p = percentiles(times);
    console.log(
      `enqueue → 200 with 10 vendors at 200 ms each: p50 ${fmt(p.p50)} ms, max ${fmt(Math.max(...times))} ms (sequential would be ≥ 2000 ms; target ≤ 500 ms); vendor calls ${vt.calls.length}`,
    );
  } finally {
    await app.close();
    await services.close();
    await vt.close();
    await db.drop();
  }
}

/** `--cached`, `--fanout`, `--workers` run only those parts (all when none is given). */
const parts = ["--cached", "--fanout", "--workers"].filter((f) => process.argv.includes(f));
const runs = (part: string) => parts.length === 0 || parts.includes(part);

console.log(`intel benchmark — ${SECONDS} s per measure, ${ROUNDS} rounds, ${CONNECTIONS} connections`);
if (runs("--cached")) {
  await cachedAnswers("sqlite");
  if (await postgresSkipReason().catch(() => "unreachable")) console.log("postgres: skipped (not reachable)");
  else await cachedAnswers("postgres");
}
if (runs("--fanout")) await fanoutLatency();
if (runs("--workers")) await workersScaling();
