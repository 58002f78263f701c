/**
 * The long hostile-input run (≥ 5,000 cases) against a real files server in a child process:
 * counts answers by kind and status, and checks no 5xx, the error model, time limits, memory
 * back near its baseline afterwards, and no temp file left behind. `--structured` mutates
 * structure instead of bytes (bench/fuzz/structured/).
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { runStructured } from "../../test/fuzz/structured/report.ts";
import { hostileRequest, judgeAnswer, seedFiles, sendHostile } from "../../test/helpers/hostile.ts";
import { fmt, memoryOf } from "../lib/measure.ts";
import { startChildServer } from "../lib/server.ts";

const CASES = Number(process.env.FUZZ_CASES ?? 5000);
const CONCURRENCY = 4;
const FIELD_LIMIT = 64 * 1024;

async function main(): Promise<number> {
  const tmpDir = await mkdtemp(path.join(os.tmpdir(), "loupe-fuzz-"));
  const server = await startChildServer(["files", "serve"], {
    FILES_TMP_DIR: tmpDir,
    MAX_FILE_SIZE: "1000000",
    MAX_FORM_FIELD_SIZE: String(FIELD_LIMIT),
    MAX_IMAGE_PIXELS: "4000000",
    SCAN_TIMEOUT_MS: "5000",
    EXTRACT_TIMEOUT_MS: "10000",
  });
  const failures: string[] = [];
  const counts = new Map<string, number>();
  let slowest = 0;
  try {
    const seeds = await seedFiles();
    const cases = fc.sample(hostileRequest(seeds, FIELD_LIMIT), {
      numRuns: CASES,
      seed: Number(process.env.FUZZ_SEED ?? 42),
    });
    // Warm up so the memory baseline includes loaded engines.
    for (const r of cases.slice(0, 20)) await sendHostile(server.url, r).catch(() => undefined);
    const baseline = memoryOf(server.pid).rssMb;
    console.log(
      `fuzz: ${CASES} hostile requests, ${CONCURRENCY} in flight; server RSS after warm-up ${fmt(baseline)} MB`,
    );
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < cases.length) {
          const r = cases[next++]!;
          try {
            const answer = await sendHostile(server.url, r);
            slowest = Math.max(slowest, answer.ms);
            const key = `${r.kind} → ${answer.status}`;
            counts.set(key, (counts.get(key) ?? 0) + 1);
            const problem = judgeAnswer(r, answer);
            if (problem) failures.push(problem);
          } catch (err) {
            failures.push(`${r.kind} on ${r.path}: no answer (${(err as Error).message})`);
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 2000));
    const after = memoryOf(server.pid);
    const leftovers = (await readdir(tmpDir, { recursive: true, withFileTypes: true })).filter((e) =>
      e.isFile(),
    );
    const health = await fetch(`${server.url}/`);
    console.table([...counts.entries()].sort().map(([k, n]) => ({ "kind → status": k, count: n })));
    console.log(`${CASES} cases in ${fmt(seconds)} s; slowest answer ${fmt(slowest)} ms`);
    console.log(
      `server RSS: ${fmt(baseline)} MB before, ${fmt(after.rssMb)} MB after (peak ${fmt(after.peakMb)} MB)`,
    );
    console.log(`temp files left: ${leftovers.length}; health after the run: HTTP ${health.status}`);
    console.log(`failures: ${failures.length}`);
    for (const f of failures.slice(0, 20)) console.log(`  - ${f}`);
    return failures.length === 0 && leftovers.length === 0 && health.status === 200 ? 0 : 1;
  } finally {
    await server.stop();
    await rm(tmpDir, { recursive: true, force: true });
  }
}

process.exitCode = process.argv.includes("--structured") ? await runStructured() : await main();
