/**
 * Fault injection against real intel processes and loopback vendors: vendors that fail in every
 * way (500, too slow, hanging, garbage, 429 with Retry-After, flapping), PostgreSQL restarted
 * mid-run, workers SIGKILLed again and again, and the API restarted with requests queued. For
 * each scenario, many subjects are asked the way Colander asks (repeat the call until it stops
 * answering 201) and the outcome is checked: every request ends SUCCEEDED with the healthy
 * vendors' data or FAILED with each vendor's reason; none is lost; one request and one job per
 * subject; no vendor asked twice without cause; no duplicate entity in the store.
 * Jobs keep the default lease (two minutes): no recovery may wait for it. FAULTS_SUBJECTS sets
 * the subjects per scenario (default 120).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { sql } from "kysely";
import { request } from "undici";
import { createToken, createUser } from "../../src/intel/store/accounts.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import {
  FAULTS,
  type Fault,
  type FaultVendor,
  fileSubjects,
  hashlookupAnswer,
  startFaultVendor,
  virusTotalAnswer,
} from "../../test/helpers/fault-vendor.ts";
import { type DbKind, freshDatabase, postgresSkipReason } from "../../test/helpers/intel-server.ts";
import { fmt } from "../lib/measure.ts";
import { type ChildServer, spawnIntelWorker, startChildServer } from "../lib/server.ts";

const SUBJECTS = Number(process.env.FAULTS_SUBJECTS ?? 120);
/** Runs only the scenarios whose "name (db)" matches this regular expression. */
const ONLY = new RegExp(process.env.FAULTS_ONLY ?? "", "i");
const DEADLINE_MS = 180_000;
const VENDORS = ["virustotal", "hashlookup"] as const;
type Vendor = (typeof VENDORS)[number];

/** Evidence each vendor's data reached the answer: an attribute only that vendor sets on the root. */
const EVIDENCE: Record<Vendor, string> = { virustotal: "vt_score", hashlookup: "known_file" };

interface StackOptions {
  kind: DbKind;
  faults?: Partial<Record<Vendor, Fault>>;
  delayMs?: number;
  /** Standalone worker processes; 0 = the API's embedded worker. */
  workers?: number;
  /** Settings that differ from the benchmark's. */
  env?: Record<string, string>;
}

interface Stack {
  api: ChildServer;
  env: Record<string, string>;
  key: string;
  store: Store;
  vendors: Record<Vendor, FaultVendor>;
  workers: ChildProcess[];
  restartApi(signal: NodeJS.Signals): Promise<void>;
  addWorker(): void;
  close(): Promise<void>;
}

async function startStack(opts: StackOptions): Promise<Stack> {
  const db = await freshDatabase(opts.kind);
  const vendors = {
    virustotal: await startFaultVendor({
      healthy: virusTotalAnswer,
      fault: opts.faults?.virustotal,
      delayMs: opts.delayMs,
      slowMs: 3000,
    }),
    hashlookup: await startFaultVendor({
      healthy: hashlookupAnswer,
      fault: opts.faults?.hashlookup,
      delayMs: opts.delayMs,
      slowMs: 3000,
      ratePerSecond: 10,
    }),
  };
  const store = await openStore(db.url);
  const user = await createUser(store.db, "faults", "faults-password", false);
  const { key } = await createToken(store.db, user.id);
  await addCredentials(store.db, "virustotal", { api_key: "fault-key" });
  const env: Record<string, string> = {
    LOG_LEVEL: "error",
    DATABASE_URL: db.url,
    INTEL_CONNECTORS: VENDORS.join(","),
    INTEL_VENDOR_URL_VIRUSTOTAL: vendors.virustotal.url,
    INTEL_VENDOR_URL_HASHLOOKUP: vendors.hashlookup.url,
    INTEL_VENDOR_TIMEOUT_MS: "1000",
    INTEL_VENDOR_RETRIES: "2",
    INTEL_VENDOR_MAX_BACKOFF_MS: "1500",
    INTEL_VENDOR_CONCURRENCY: "32",
    INTEL_WORKER_CONCURRENCY: "16",
    INTEL_FAILURE_COOLDOWN_MS: "600000",
    INTEL_RETRY_AFTER: "1",
    INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0",
    ...opts.env,
  };
  const standalone = opts.workers ?? 0;
  const serveArgs = ["intel", "serve", ...(standalone > 0 ? ["--no-worker"] : [])];
  let api = await startChildServer(serveArgs, env, "/", "INTEL_PORT");
  const port = new URL(api.url).port;
  const workers: ChildProcess[] = [];
  const addWorker = () => workers.push(spawnIntelWorker(env));
  for (let i = 0; i < standalone; i++) addWorker();
  return {
    get api() {
      return api;
    },
    env,
    key,
    store,
    vendors,
    workers,
    addWorker,
    async restartApi(signal) {
      const exited = new Promise((r) => api.child.once("exit", r));
      api.child.kill(signal);
      await exited;
      api = await startChildServer(serveArgs, { ...env, INTEL_PORT: port }, "/", "INTEL_PORT");
    },
    async close() {
      for (const w of workers) w.kill("SIGKILL");
      await api.stop().catch(() => undefined);
      await store.close();
      for (const v of Object.values(vendors)) await v.close();
      await db.drop();
    },
  };
}

interface Final {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the answer documents are read loosely.
  body: any;
}

interface Drive {
  finals: Map<string, Final>;
  ids: Map<string, string>;
  /** Answers that were neither 200, 201 nor 502 (a restarting API or database), retried. */
  unavailable: number;
  seconds: number;
}

/** Asks about every subject, then repeats each call until it stops answering 201 (Colander's way). */
async function drive(stack: Stack, subjects: string[], during?: () => Promise<void>): Promise<Drive> {
  const finals = new Map<string, Final>();
  const ids = new Map<string, string>();
  let unavailable = 0;
  const started = performance.now();
  const ask = async (md5: string) => {
    try {
      const res = await request(`${stack.api.url}/api/request/`, {
        method: "POST",
        headers: { authorization: `Token ${stack.key}`, "content-type": "application/json" },
        body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value: md5 }),
      });
      const text = await res.body.text();
      if (res.statusCode === 201) ids.set(md5, JSON.parse(text).id);
      else if (res.statusCode === 200 || res.statusCode === 502)
        finals.set(md5, { status: res.statusCode, body: JSON.parse(text) });
      else unavailable++;
    } catch {
      unavailable++;
    }
  };
  // Caught at once (an unawaited rejection would end the process), rethrown after the run.
  let injectorFailure: unknown;
  const injector = during?.().catch((err: unknown) => {
    injectorFailure = err ?? new Error("fault injector failed");
  });
  let pending = subjects;
  while (pending.length > 0 && performance.now() - started < DEADLINE_MS) {
    for (let i = 0; i < pending.length; i += 16) await Promise.all(pending.slice(i, i + 16).map(ask));
    pending = pending.filter((s) => !finals.has(s));
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 250));
  }
  await injector;
  if (injectorFailure) throw injectorFailure;
  return { finals, ids, unavailable, seconds: (performance.now() - started) / 1000 };
}

interface Row {
  scenario: string;
  db: DbKind;
  subjects: number;
  succeeded: number;
  failed: number;
  lost: number;
  "dup requests": number;
  "dup entities": number;
  "bad answers": number;
  "calls/subject": string;
  unavailable: number;
  seconds: string;
  ok: string;
}

/** Checks the properties on the answers and in the store; `problems` lists each violation. */
async function judge(
  name: string,
  stack: Stack,
  subjects: string[],
  run: Drive,
  healthy: Vendor[],
  problems: string[],
): Promise<Row> {
  const { db } = stack.store;
  let bad = 0;
  const complain = (p: string) => {
    bad++;
    if (problems.filter((x) => x.startsWith(name)).length < 8) problems.push(`${name}: ${p}`);
  };
  let succeeded = 0;
  let failed = 0;
  for (const [md5, final] of run.finals) {
    if (final.status === 200) {
      succeeded++;
      const { sources, root_entity: root } = final.body;
      for (const v of VENDORS) {
        const outcome = sources?.[v];
        if (!outcome) complain(`${md5}: no outcome for ${v}`);
        else if (outcome.status === "ok" && root?.attributes?.[EVIDENCE[v]] === undefined)
          complain(`${md5}: ${v} answered but its data is missing`);
        else if (outcome.status === "error" && !outcome.error)
          complain(`${md5}: ${v} failed without a reason`);
        else if (healthy.includes(v) && outcome.status !== "ok")
          complain(`${md5}: healthy ${v} ended ${outcome.status} (${outcome.error})`);
      }
    } else {
      failed++;
      const errors = final.body.errors ?? {};
      if (healthy.length > 0) complain(`${md5}: FAILED although ${healthy.join(", ")} worked`);
      for (const v of VENDORS) if (!errors[v]) complain(`${md5}: FAILED without ${v}'s reason`);
    }
  }
  const lost = subjects.filter((s) => !run.finals.has(s)).length;
  if (lost > 0) complain(`${lost} subjects never reached a final answer`);
  const requests = await db.selectFrom("requests").select(["subject_key", "status"]).execute();
  const perSubject = new Map<string, number>();
  for (const r of requests) perSubject.set(r.subject_key, (perSubject.get(r.subject_key) ?? 0) + 1);
  const dupRequests = [...perSubject.values()].filter((n) => n > 1).length;
  const unfinished = requests.filter((r) => r.status !== "SUCCEEDED" && r.status !== "FAILED").length;
  if (unfinished > 0) complain(`${unfinished} requests not in a final state in the store`);
  const jobsLeft = Number(
    (await db.selectFrom("jobs").select(db.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n,
  );
  if (jobsLeft > 0) complain(`${jobsLeft} jobs left in the queue`);
  const dupEntities = await sql<{ n: number }>`
    select count(*) as n from (
      select 1 from entities group by super_type, type, lower(name) having count(*) > 1
    ) d`.execute(db);
  const dupEntityCount = Number(dupEntities.rows[0]?.n ?? 0);
  const roots = await db
    .selectFrom("entities")
    .select(db.fn.countAll<number>().as("n"))
    .where("type", "=", "MD5")
    .where("name", "in", subjects)
    .executeTakeFirstOrThrow();
  if (Number(roots.n) !== run.finals.size)
    complain(`${roots.n} root entities for ${run.finals.size} answers`);
  const calls = VENDORS.map((v) => {
    const counts = [...stack.vendors[v].calls.values()];
    return `${v === "virustotal" ? "VT" : "CIRCL"} ≤${Math.max(0, ...counts)}`;
  }).join(", ");
  const ok = bad === 0 && dupRequests === 0 && dupEntityCount === 0 && lost === 0;
  return {
    scenario: name,
    db: stack.store.dialect === "postgres" ? "postgres" : "sqlite",
    subjects: subjects.length,
    succeeded,
    failed,
    lost,
    "dup requests": dupRequests,
    "dup entities": dupEntityCount,
    "bad answers": bad,
    "calls/subject": calls,
    unavailable: run.unavailable,
    seconds: fmt(run.seconds),
    ok: ok ? "yes" : "NO",
  };
}

/** Vendor outcomes across the answers: "hashlookup timeout 120, ok 3". */
function outcomes(run: Drive, vendor: Vendor): string {
  const counts = new Map<string, number>();
  for (const f of run.finals.values()) {
    const o = f.status === 200 ? f.body.sources?.[vendor] : { error: f.body.errors?.[vendor] };
    const kind = o?.status === "ok" || o?.status === "not_found" ? o.status : String(o?.error).split(":")[0];
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts.entries()].map(([k, n]) => `${k} ${n}`).join(", ");
}

const rows: Row[] = [];
const problems: string[] = [];
const notes: string[] = [];

async function scenario(
  name: string,
  opts: StackOptions,
  healthy: Vendor[],
  during?: (stack: Stack) => Promise<void>,
): Promise<void> {
  if (!ONLY.test(`${name} (${opts.kind})`)) return;
  const stack = await startStack(opts);
  try {
    const subjects = fileSubjects(SUBJECTS, `${name}-${Date.now()}`);
    const run = await drive(stack, subjects, during ? () => during(stack) : undefined);
    rows.push(await judge(name, stack, subjects, run, healthy, problems));
    notes.push(
      `${name} (${opts.kind}): ${VENDORS.map((v) => `${v}: ${outcomes(run, v)}`).join("; ")}; vendor answers ${VENDORS.map(
        (v) => `${v} {${[...stack.vendors[v].answers.entries()].map(([k, n]) => `${k}: ${n}`).join(", ")}}`,
      ).join(" ")}`,
    );
  } finally {
    await stack.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ── PostgreSQL cluster restart ────────────────────────────────────────────────────────────────
const CLUSTER = (() => {
  try {
    return readdirSync("/etc/postgresql")[0];
  } catch {
    return undefined;
  }
})();

/** Runs pg_ctlcluster without blocking this process (the fake vendors live in it). */
function pgCtl(action: "restart" | "start" | "status"): Promise<number> {
  const child = spawn("pg_ctlcluster", ["--skip-systemctl-redirect", CLUSTER ?? "", "main", action], {
    stdio: action === "status" ? "ignore" : "inherit",
  });
  return new Promise((resolve) => {
    child.once("error", () => resolve(1));
    child.once("exit", (code) => resolve(code ?? 1));
  });
}

/** Whatever happened, the cluster runs again when the benchmark ends. */
async function ensureClusterRunning(): Promise<void> {
  if (CLUSTER && (await pgCtl("status")) !== 0) await pgCtl("start");
}

const vendorCalls = (stack: Stack) => [...stack.vendors.virustotal.calls.values()].reduce((a, b) => a + b, 0);

/** Restarts the cluster twice while requests run (once workers are busy, so it hits work in flight). */
async function restartPostgres(stack: Stack): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const target = (i + 1) * Math.floor(SUBJECTS / 4);
    // Bounded: if the stack stopped working, the checks report it; the benchmark must not hang.
    const giveUp = performance.now() + 30_000;
    while (vendorCalls(stack) < target && performance.now() < giveUp) await sleep(50);
    const calls = vendorCalls(stack);
    const t = performance.now();
    const status = await pgCtl("restart");
    notes.push(
      `PostgreSQL restart ${i + 1} after ${calls} vendor calls: exit ${status} in ${fmt(performance.now() - t, 0)} ms`,
    );
  }
}

async function killWorkers(stack: Stack): Promise<void> {
  let kills = 0;
  while (kills < 10) {
    await sleep(700);
    const alive = stack.workers.filter((w) => w.exitCode === null && w.signalCode === null);
    const victim = alive[kills % Math.max(1, alive.length)];
    if (!victim) break;
    victim.kill("SIGKILL");
    kills++;
    stack.addWorker();
  }
  notes.push(`workers SIGKILLed: ${kills}`);
}

async function restartApi(stack: Stack, signal: NodeJS.Signals): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await sleep(800);
    const t = performance.now();
    await stack.restartApi(signal);
    notes.push(`API ${signal} + restart ${i + 1}: back in ${fmt(performance.now() - t, 0)} ms`);
  }
}

async function main(): Promise<number> {
  const pgSkip = await postgresSkipReason().catch(() => "PostgreSQL unreachable");
  console.log(`faults benchmark — ${SUBJECTS} subjects per scenario`);
  try {
    for (const fault of FAULTS)
      await scenario(`CIRCL ${fault}`, { kind: "sqlite", faults: { hashlookup: fault } }, ["virustotal"]);
    await scenario("both flap", { kind: "sqlite", faults: { virustotal: "flap", hashlookup: "flap" } }, []);
    await scenario("API SIGKILL", { kind: "sqlite", delayMs: 300 }, [...VENDORS], (s) =>
      restartApi(s, "SIGKILL"),
    );
    await scenario("API SIGTERM", { kind: "sqlite", delayMs: 300 }, [...VENDORS], (s) =>
      restartApi(s, "SIGTERM"),
    );
    await scenario("worker SIGKILL", { kind: "sqlite", delayMs: 300, workers: 2 }, [...VENDORS], killWorkers);
    if (pgSkip) console.log(`PostgreSQL scenarios skipped: ${pgSkip}`);
    else {
      await scenario("CIRCL flap", { kind: "postgres", faults: { hashlookup: "flap" } }, ["virustotal"]);
      await scenario("API SIGKILL", { kind: "postgres", delayMs: 300 }, [...VENDORS], (s) =>
        restartApi(s, "SIGKILL"),
      );
      await scenario(
        "worker SIGKILL",
        { kind: "postgres", delayMs: 300, workers: 2 },
        [...VENDORS],
        killWorkers,
      );
      if (!CLUSTER || process.env.FAULTS_PG_RESTART === "0")
        console.log("PostgreSQL restart skipped (no local cluster, or FAULTS_PG_RESTART=0)");
      else
        await scenario(
          "PostgreSQL restart",
          { kind: "postgres", delayMs: 300, workers: 2 },
          [...VENDORS],
          restartPostgres,
        );
    }
  } finally {
    await ensureClusterRunning();
  }
  console.table(rows);
  for (const n of notes) console.log(`  ${n}`);
  console.log(`violations: ${problems.length}`);
  for (const p of problems) console.log(`  - ${p}`);
  return problems.length === 0 && rows.every((r) => r.ok === "yes") ? 0 : 1;
}

process.exitCode = await main();
