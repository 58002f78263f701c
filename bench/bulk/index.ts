/**
 * Bulk asks against single asks: a 1,000-subject batch against a fake VirusTotal answering in
 * VENDOR_DELAY_MS, while one client asks about new subjects one at a time (force, 201 → polls →
 * 200). Prints the single asks' latency (p50, p99, max) with and without the batch running, and
 * how long the batch took — on SQLite and PostgreSQL.
 */
import { createHash } from "node:crypto";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { startFakeVirusTotal, VT_KEY } from "../../test/helpers/fake-virustotal.ts";
import {
  type DbKind,
  freshDatabase,
  postgresSkipReason,
  startIntelServer,
  type TestIntelServer,
} from "../../test/helpers/intel-server.ts";
import { fmt, percentiles } from "../lib/measure.ts";

const BATCH = Number(process.env.BENCH_BULK_SUBJECTS ?? 1000);
const VENDOR_DELAY_MS = Number(process.env.BENCH_VENDOR_DELAY_MS ?? 50);
const SINGLES = Number(process.env.BENCH_SINGLES ?? 30);
const DATABASES = (process.env.BENCH_DATABASES ?? "sqlite,postgres").split(",");

const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const subject = (value: string) => ({ super_type: "OBSERVABLE", type: "MD5", value });

/** One single ask, from the first POST to the 200: milliseconds. */
async function singleAsk(server: TestIntelServer, value: string): Promise<number> {
  const started = performance.now();
  const body = JSON.stringify({ ...subject(value), force: true });
  let res = await server.api("/api/request/", { method: "POST", body });
  const again = JSON.stringify(subject(value));
  while (res.status === 201) {
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 10));
    res = await server.api("/api/request/", { method: "POST", body: again });
  }
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`single ask answered ${res.status}`);
  return performance.now() - started;
}

async function singles(server: TestIntelServer, tag: string, stop: () => boolean): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < SINGLES && !stop(); i++) {
    times.push(await singleAsk(server, md5(`${tag}-${i}`)));
    await new Promise((r) => setTimeout(r, 100));
  }
  return times;
}

const report = (name: string, times: number[]) => {
  if (times.length === 0) return `${name}: none`;
  const p = percentiles(times);
  return `${name}: ${times.length} asks, p50 ${fmt(p.p50)} ms, p99 ${fmt(p.p99)} ms, max ${fmt(Math.max(...times))} ms`;
};

async function waitForBatch(server: TestIntelServer, id: string): Promise<void> {
  for (;;) {
    const res = await server.api(`/api/batches/${id}/?limit=1`);
    const progress = (await res.json()) as { finished_at: string | null };
    if (progress.finished_at) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function run(kind: DbKind): Promise<void> {
  const vt = await startFakeVirusTotal();
  vt.delayMs = VENDOR_DELAY_MS;
  const db = await freshDatabase(kind);
  const server = await startIntelServer({
    databaseUrl: db.url,
    env: { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_VENDOR_RETRIES: "0", LOG_LEVEL: "silent" },
  });
  try {
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
    const alone = await singles(server, "alone", () => false);
    const subjects = Array.from({ length: BATCH }, (_, i) => subject(md5(`bulk-${i}`)));
    const started = performance.now();
    const posted = server.api("/api/requests/", { method: "POST", body: JSON.stringify({ subjects }) });
    // Single asks while the bulk ask is being answered (its subjects submitted), then while its lookups run.
    let answered = false;
    const submitting = singles(server, "submitting", () => answered);
    const res = await posted;
    answered = true;
    const accepted = performance.now() - started;
    const { id } = (await res.json()) as { id: string };
    let batchDone = false;
    const finished = waitForBatch(server, id).then(() => {
      batchDone = true;
    });
    const whileSubmitting = await submitting;
    const during = await singles(server, "during", () => batchDone);
    await finished;
    const total = performance.now() - started;
    console.log(`${kind.padEnd(8)} ${report("single asks alone", alone)}`);
    console.log(
      `${kind.padEnd(8)} ${report("single asks while the bulk ask is submitted", whileSubmitting)}`,
    );
    console.log(`${kind.padEnd(8)} ${report(`single asks while its ${BATCH} lookups run`, during)}`);
    console.log(
      `${kind.padEnd(8)} batch: answered in ${fmt(accepted, 0)} ms, finished in ${fmt(total / 1000, 1)} s (${fmt(BATCH / (total / 1000), 0)} subjects/s); vendor calls ${vt.calls.length}`,
    );
  } finally {
    await server.close();
    await vt.close();
    await db.drop();
  }
}

console.log(
  `bulk benchmark — ${BATCH} subjects, vendor answers in ${VENDOR_DELAY_MS} ms, single asks one at a time (target p99 < 1000 ms)`,
);
if (DATABASES.includes("sqlite")) await run("sqlite");
if (DATABASES.includes("postgres")) {
  if (await postgresSkipReason().catch(() => "unreachable")) console.log("postgres: skipped (not reachable)");
  else await run("postgres");
}
