/**
 * A short, deterministic structure-aware fuzz run (the long one is `./loupe bench fuzz
 * --structured`): archive trees, image headers, PDF/OLE tables and YARA syntax trees against a
 * real files process, which must answer every case (no 5xx, the error model) and survive.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { FUZZ_ENV } from "../fuzz/structured/report.ts";
import { runStructuredFuzz } from "../fuzz/structured/run.ts";
import { assertSurvived } from "../helpers/real-process.ts";

const SLOW_MACHINE_MS = 900_000;

it("150 structured hostile files: no crash, no 5xx, the same process answers afterwards", {
  timeout: SLOW_MACHINE_MS,
}, async () => {
  let survived = false;
  const report = await runStructuredFuzz({
    cases: 150,
    seed: 1234,
    concurrency: 2,
    maxBombBytes: 4 << 20, // the long run tries 64 MiB bombs; here they stay quick
    env: FUZZ_ENV,
    beforeClose: async (server) => {
      await assertSurvived(server);
      survived = true;
    },
  });
  assert.deepEqual(report.crashes, [], "no case ended the process");
  assert.deepEqual(report.failures, [], "every case answered in time, below 500, with {detail, code}");
  assert.equal(Object.keys(report.byFamily).length, 5, "every family of structure was tried");
  assert.ok(survived);
});
