/**
 * Worker scaling on vendor-bound load: N lookups queued on PostgreSQL, each asking a vendor that
 * answers in 200 ms, processed by 1 and then 2 `intel worker` processes. The clock starts once
 * every worker is connected and the jobs are committed in one transaction (a worker's start-up
 * is not lookup throughput), and stops when the last request has finished.
 */
import type { Kysely } from "kysely";
import pg from "pg";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { openStore } from "../../src/intel/store/db.ts";
import type { Database } from "../../src/intel/store/schema.ts";
import { startFakeVirusTotal, VT_KEY } from "../../test/helpers/fake-virustotal.ts";
import { freshDatabase, postgresSkipReason } from "../../test/helpers/intel-server.ts";
import { cpuDuring, loadavg } from "./cpu.ts";
import { fmt } from "./measure.ts";
import { spawnIntelWorker } from "./server.ts";

// Enough for the steady state: with 200, the first claims and the last lookups weigh a fifth of a run.
const LOOKUPS = Number(process.env.BENCH_WORKER_LOOKUPS ?? 1000);
const VENDOR_MS = 200;

async function queueLookups(db: Kysely<Database>, total: number): Promise<void> {
  const now = new Date().toISOString();
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < total; i++) {
      const id = crypto.randomUUID();
      const value = `${i.toString(16).padStart(4, "0")}${"c".repeat(28)}`;
      const row = { super_type: "OBSERVABLE", type: "MD5", value, subject_key: `OBSERVABLE/MD5/${value}` };
      await tx
        .insertInto("requests")
        .values({
          id,
          ...row,
          force: 1,
          status: "ENQUEUED",
          vendors: "{}",
          error: null,
          created_at: now,
          started_at: null,
          finished_at: null,
        })
        .execute();
      await tx
        .insertInto("jobs")
        .values({
          id: crypto.randomUUID(),
          request_id: id,
          status: "queued",
          attempts: 0,
          lease_until: null,
          worker: null,
          created_at: now,
        })
        .execute();
    }
  });
}

/** Waits until a connection named by each of `names` is open on the database of `url`. */
async function untilConnected(url: string, names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ application_name: string }>(
        "select distinct application_name from pg_stat_activity where datname = current_database()",
      );
      if (names.every((n) => rows.some((r) => r.application_name === n))) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await client.end();
  }
}

async function untilAllFinished(db: Kysely<Database>): Promise<void> {
  for (;;) {
    const left = await db
      .selectFrom("requests")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "not in", ["SUCCEEDED", "FAILED"])
      .executeTakeFirstOrThrow();
    if (Number(left.n) === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Lookups per second and worker CPU per lookup with `count` workers on a fresh database. */
async function runWorkers(count: number, vendorUrl: string): Promise<{ rate: number; cpuMs: number }> {
  const database = await freshDatabase("postgres");
  const store = await openStore(database.url);
  const procs: ReturnType<typeof spawnIntelWorker>[] = [];
  try {
    await addCredentials(store.db, "virustotal", { api_key: VT_KEY });
    const names = Array.from({ length: count }, (_, i) => `bench-worker-${i}`);
    for (const name of names) {
      const url = new URL(database.url);
      url.searchParams.set("application_name", name);
      procs.push(
        spawnIntelWorker({
          DATABASE_URL: url.toString(),
          INTEL_CONNECTORS: "virustotal",
          INTEL_VENDOR_URL_VIRUSTOTAL: vendorUrl,
          INTEL_WORKER_CONCURRENCY: "8",
        }),
      );
    }
    await untilConnected(database.url, names);
    const pids = () => procs.map((p) => p.pid ?? 0);
    const started = performance.now();
    const { cpuSeconds } = await cpuDuring(pids, async () => {
      await queueLookups(store.db, LOOKUPS);
      await untilAllFinished(store.db);
    });
    const rate = LOOKUPS / ((performance.now() - started) / 1000);
    return { rate, cpuMs: (cpuSeconds * 1000) / LOOKUPS };
  } finally {
    for (const p of procs) p.kill("SIGTERM");
    await store.close();
    await database.drop();
  }
}

/** Prints lookups/s for 1 and 2 workers and their ratio (target ≥ 1.8×), rounds alternating. */
export async function workersScaling(rounds = Number(process.env.BENCH_WORKER_ROUNDS ?? 1)): Promise<void> {
  if (await postgresSkipReason().catch(() => "unreachable")) {
    console.log("workers: skipped (PostgreSQL not reachable)");
    return;
  }
  const vt = await startFakeVirusTotal({});
  vt.delayMs = VENDOR_MS;
  try {
    for (let round = 1; round <= rounds; round++) {
      const one = await runWorkers(1, vt.url);
      const two = await runWorkers(2, vt.url);
      console.log(
        `workers round ${round}: ${LOOKUPS} lookups, vendor ${VENDOR_MS} ms: 1 worker ${fmt(one.rate)}/s (${fmt(one.cpuMs)} ms CPU each), 2 workers ${fmt(two.rate)}/s (${fmt(two.cpuMs)} ms CPU each) → ${fmt(two.rate / one.rate, 2)}× (target ≥ 1.8×; load ${loadavg()})`,
      );
    }
  } finally {
    await vt.close();
  }
}
