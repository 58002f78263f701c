/**
 * Fair YARA (issue 27): how long an ordinary 8 KB scan waits while four runaway loops run — from
 * one address and from four — with today's settings and with the old ones (no client share, no
 * scan budget); then the soak: every hostile YARA shape beside an ordinary scanner against one
 * files process for YARA_SOAK_MS (default 10 minutes), every ordinary answer checked.
 */

import { type RealProcess, startFilesProcess } from "../../test/helpers/real-process.ts";
import { FILE_BOUNDED_LOOP, LOOP_FILE, ORDINARY_RULES } from "../../test/hostile/yara-cases.ts";
import { clientFrom } from "../../test/hostile/yara-clients.ts";
import { yaraSoak } from "../../test/hostile/yara-soak.ts";
import { fmt, memoryOf, percentiles } from "../lib/measure.ts";

const SOAK_MS = Number(process.env.YARA_SOAK_MS ?? 600_000);
const SAMPLES = Number(process.env.YARA_WAIT_SAMPLES ?? 20);
const SMALL_FILE = `${"ordinary text ".repeat(585)}loupe-probe`; // ≈ 8 KB, matches ORDINARY_RULES

/** Four lanes looping runaway scans from `addresses` (cycled) until `stop` aborts. */
function runaways(server: RealProcess, addresses: string[], stop: AbortSignal): Promise<unknown> {
  return Promise.all(
    [0, 1, 2, 3].map(async (i) => {
      const client = clientFrom(addresses[i % addresses.length] as string);
      while (!stop.aborted) {
        await client
          .post(`${server.url}/analyzer/rulematch`, LOOP_FILE, { rules: FILE_BOUNDED_LOOP }, stop)
          .catch(() => undefined);
      }
      await client.close();
    }),
  );
}

/** Ordinary scans one after the other while the runaways run: their times in ms. */
async function ordinaryWaits(server: RealProcess, samples: number): Promise<number[]> {
  const client = clientFrom("127.0.0.20");
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const { body } = await client.post(`${server.url}/analyzer/rulematch`, SMALL_FILE, {
      rules: ORDINARY_RULES,
    });
    times.push(performance.now() - started);
    const entry = (body.processors as Record<string, { success: boolean }>).rulematch;
    if (!entry?.success) console.log(`  an ordinary scan failed: ${JSON.stringify(entry).slice(0, 200)}`);
  }
  await client.close();
  return times;
}

async function waitScenario(name: string, env: Record<string, string>, addresses: string[], samples: number) {
  const server = await startFilesProcess(env);
  try {
    await ordinaryWaits(server, 2); // warm: the rules compiled, the native pool started
    const stop = new AbortController();
    const loops = runaways(server, addresses, stop.signal);
    await new Promise((r) => setTimeout(r, 1000)); // the runaways hold their workers
    const times = await ordinaryWaits(server, samples);
    stop.abort();
    await loops;
    const { p50 } = percentiles(times);
    const sorted = [...times].sort((a, b) => a - b);
    const p90 = sorted[Math.floor(sorted.length * 0.9)] ?? 0;
    console.log(
      `${name}: ${samples} scans, wait p50 ${fmt(p50, 0)} ms, p90 ${fmt(p90, 0)} ms, max ${fmt(sorted.at(-1) ?? 0, 0)} ms`,
    );
  } finally {
    await server.close();
  }
}

async function soak(): Promise<boolean> {
  const server = await startFilesProcess({ SCAN_TIMEOUT_MS: "20000", RULES_COMPILE_TIMEOUT_MS: "3000" });
  try {
    const before = memoryOf(server.pid).rssMb;
    const report = await yaraSoak(server, SOAK_MS, 3);
    const { p50, p99 } = percentiles(report.ordinaryMs);
    const max = Math.max(...report.ordinaryMs);
    const health = (await (await fetch(`${server.url}/`)).json()) as {
      engines: Record<string, { detail: string }>;
    };
    console.log(
      `soak ${SOAK_MS / 1000} s: ${report.ordinary} ordinary scans (p50 ${fmt(p50, 0)} ms, p99 ${fmt(p99, 0)} ms, max ${fmt(max, 0)} ms), ` +
        `${report.wrong.length} wrong; ${report.hostile} hostile answers, ${report.unexpected.length} unexpected, ` +
        `${report.abandoned} abandoned; ${report.healthChecks} health checks, ${report.unhealthy.length} not ready; ` +
        `RSS ${fmt(before, 0)} → ${fmt(memoryOf(server.pid).rssMb, 0)} MB`,
    );
    console.log(`  native pool afterwards: ${health.engines.yara_native?.detail}`);
    for (const line of [...report.wrong, ...report.unexpected, ...report.unhealthy].slice(0, 10))
      console.log(`  ${line}`);
    return report.wrong.length + report.unexpected.length + report.unhealthy.length === 0;
  } finally {
    await server.close();
  }
}

const WORKERS = { YARA_WORKERS: "2" };
await waitScenario("four runaways from one address", WORKERS, ["127.0.0.2"], SAMPLES);
await waitScenario(
  "four runaways from four addresses",
  WORKERS,
  ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"],
  SAMPLES,
);
if (process.env.YARA_OLD_SETTINGS === "1") {
  // The settings before issue 27: no share, no budget (a runaway holds its worker for SCAN_TIMEOUT_MS).
  const old = { ...WORKERS, RULES_CLIENT_SHARE: "100", RULES_SCAN_BUDGET_MS: "60000" };
  await waitScenario("old settings, four runaways from one address", old, ["127.0.0.2"], 2);
}
process.exitCode = (await soak()) ? 0 : 1;
