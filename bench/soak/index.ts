/**
 * The soak (issue 27): every hostile shape of test/hostile/soak-shapes.ts from three addresses,
 * beside ordinary extractions, rule matches, thumbnails and antivirus scans whose every answer is
 * checked, against one files process and a real clamd, for BENCH_SOAK_SECONDS (default 600);
 * health is read every 2 s and checked against the processes it counts, and once more when the
 * hostile lanes stop. Prints the ordinary latencies by kind, the hostile outcomes by kind, and
 * fails on any ordinary failure, health lie, hostile answer outside its shape's right outcomes, or
 * line the service logged at error level.
 * The latencies follow the machine's load: the figures of a shared machine are upper bounds.
 */

import {
  errorsLogged,
  prepareShapes,
  SOAK_LIMITS,
  type SoakReport,
  soak,
  startSoakTarget,
} from "../../test/hostile/soak.ts";
import { hostileShapes } from "../../test/hostile/soak-shapes.ts";
import { loadavg } from "../lib/cpu.ts";
import { fmt, memoryOf, percentiles } from "../lib/measure.ts";

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const LANES = Number(process.env.BENCH_SOAK_LANES ?? 3);

function printOrdinary(report: SoakReport): void {
  console.log("ordinary requests (every answer checked):");
  for (const [kind, ms] of Object.entries(report.ordinaryMs)) {
    const { p50, p99 } = percentiles(ms);
    console.log(
      `  ${kind}: ${ms.length}, p50 ${fmt(p50, 0)} ms, p99 ${fmt(p99, 0)} ms, max ${fmt(Math.max(...ms), 0)} ms`,
    );
  }
  console.log(`  failures: ${report.failures.length}`);
  for (const line of report.failures.slice(0, 20)) console.log(`    ${line}`);
}

function printHostile(report: SoakReport): void {
  console.log("hostile requests by kind, by outcome:");
  for (const [kind, outcomes] of Object.entries(report.hostile)) {
    const total = Object.values(outcomes).reduce((a, b) => a + b, 0);
    const byOutcome = Object.entries(outcomes)
      .sort((a, b) => b[1] - a[1])
      .map(([outcome, n]) => `${outcome} ×${n}`)
      .join(", ");
    console.log(`  ${kind}: ${total} (${byOutcome})`);
  }
  console.log(`  outside their shape's right outcomes: ${report.unexpected.length}`);
  for (const line of report.unexpected.slice(0, 20)) console.log(`    ${line}`);
}

const shapes = await hostileShapes(SOAK_LIMITS);
let started = performance.now();
await prepareShapes(shapes);
console.log(
  `soak: ${shapes.length} hostile shapes built in ${fmt((performance.now() - started) / 1000, 1)} s`,
);
const target = await startSoakTarget();
try {
  const before = memoryOf(target.files.pid).rssMb;
  console.log(`${SECONDS} s, ${LANES} hostile lanes, load average at the start ${loadavg()}`);
  started = performance.now();
  const report = await soak(target.files, {
    durationMs: SECONDS * 1000,
    shapes,
    hostileLanes: LANES,
    ordinaryBoundMs: 120_000,
    hostileBoundMs: 150_000,
  });
  console.log(
    `ran ${fmt((performance.now() - started) / 1000, 0)} s (settling included), load average at the end ${loadavg()}, ` +
      `files RSS ${fmt(before, 0)} → ${fmt(memoryOf(target.files.pid).rssMb, 0)} MB`,
  );
  printOrdinary(report);
  printHostile(report);
  console.log(
    `health: ${report.healthChecks} checks, ${report.healthPassed} passed; lies: ${report.healthLies.length}`,
  );
  for (const line of report.healthLies.slice(0, 20)) console.log(`    ${line}`);
  console.log("the service's log at warn level and above:");
  for (const [msg, n] of target.logged) console.log(`  ${n} × ${msg}`);
  const bad =
    report.failures.length +
    report.healthLies.length +
    report.unexpected.length +
    errorsLogged(target).length;
  process.exitCode = bad === 0 ? 0 : 1;
} finally {
  await target.close();
}
