/**
 * `./loupe bench fuzz --structured`: the structure-aware run (FUZZ_CASES, default 5,000; FUZZ_SEED;
 * FUZZ_MAX_BOMB_BYTES caps bombs' unpacked size, default 64 MiB; SIGUSR2 ends it early with the
 * figures so far), printed as docs/reliability.md publishes them.
 */
import os from "node:os";
import path from "node:path";
import { fmt } from "../../helpers/process-memory.ts";
import { runStructuredFuzz } from "./run.ts";

/** The files service's limits for the run: small enough that a bomb meets them quickly. */
export const FUZZ_ENV = {
  MAX_FILE_SIZE: "2000000",
  MAX_IMAGE_PIXELS: "4000000",
  SCAN_TIMEOUT_MS: "5000",
  EXTRACT_TIMEOUT_MS: "10000",
  CLAMD_HOST: "127.0.0.1", // no clamd: these cases are for the parsers
  CLAMD_PORT: "1",
};

export async function runStructured(): Promise<number> {
  const cases = Number(process.env.FUZZ_CASES ?? 5000);
  const seed = Number(process.env.FUZZ_SEED ?? 42);
  const saveDir = path.join(os.tmpdir(), `loupe-structured-fuzz-${seed}`);
  console.log(
    `structured fuzz: ${cases} cases, seed ${seed}, 2 in flight, bombs up to ${process.env.FUZZ_MAX_BOMB_BYTES ?? 64 << 20} bytes; crashing cases saved in ${saveDir}`,
  );
  const r = await runStructuredFuzz({
    cases,
    seed,
    concurrency: 2,
    env: FUZZ_ENV,
    saveDir,
    log: console.log,
  });
  console.table(
    Object.entries(r.byFamily).map(([family, statuses]) => ({
      family,
      ...Object.fromEntries(
        Object.entries(statuses)
          .sort()
          .map(([s, n]) => [`HTTP ${s}`, n]),
      ),
    })),
  );
  console.log(`${r.cases} cases in ${fmt(r.seconds)} s`);
  console.log(`crashes (process exits): ${r.crashes.length}`);
  for (const c of r.crashes)
    console.log(`  - case ${c.index} (${c.exit}): ${c.description}${c.saved ? ` [${c.saved}]` : ""}`);
  const fivexx = r.failures.filter((f) => / → 5\d\d/.test(f.problem)).length;
  console.log(`wrong answers: ${r.failures.length} (5xx: ${fivexx})`);
  for (const f of r.failures.slice(0, 30))
    console.log(`  - case ${f.index}: ${f.problem}\n      ${f.description}`);
  console.log(`slowest answer: ${fmt(r.slowest.ms)} ms (${r.slowest.description})`);
  console.log(
    `server RSS: ${fmt(r.rssBeforeMb)} MB fresh, ${fmt(r.rssAfterMb)} MB after (peak ${fmt(r.peakMb)} MB)`,
  );
  return r.crashes.length === 0 && r.failures.length === 0 ? 0 : 1;
}
