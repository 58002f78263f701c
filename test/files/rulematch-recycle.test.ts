/**
 * A WebAssembly worker whose memory grew past `recycleBytes` is kept while scans keep coming (its
 * grown memory and compiled rules are reused) and ends once it has been idle `recycleIdleMs`:
 * the next scan then meets a fresh thread, which compiles the rules again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RuleLimits } from "../../src/files/processors/rulematch/limits.ts";
import { YaraPool } from "../../src/files/processors/rulematch/pool.ts";
import type { TaskResult } from "../../src/files/processors/rulematch/worker.ts";

const LIMITS: RuleLimits = {
  maxBytes: 100_000,
  maxDepth: 50,
  maxRules: 100,
  maxStrings: 100,
  maxPatternBytes: 1000,
  maxAlternatives: 100,
  modules: new Set(),
};
const IDLE_MS = 1000;
/** Well under IDLE_MS, well over the time a thread takes to end. */
const PAUSE_MS = 100;

describe("recycling a WebAssembly worker after large scans", () => {
  let pool: YaraPool;
  before(() => {
    pool = new YaraPool({
      minThreads: 1,
      maxThreads: 1,
      idleMs: 60_000,
      scanTimeoutMs: 30_000,
      compileTimeoutMs: 30_000,
    });
  });
  after(() => pool.destroy());

  /** One scan whose thread counts as grown (every memory is past 1 byte). */
  async function scan(): Promise<Extract<TaskResult, { ok: true }>> {
    const result = await pool.scan(
      {
        rules: 'rule needle { strings: $a = "needle" condition: $a }',
        limits: LIMITS,
        input: { bytes: Buffer.from("a needle in bytes") },
        cacheSize: 4,
        maxMatchesPerString: 10,
        plaintextMax: 64,
        consoleMax: 1000,
        recycleBytes: 1,
        recycleIdleMs: IDLE_MS,
      },
      new AbortController().signal,
    );
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.matches[0]?.rule, "needle");
    return result;
  }

  it("keeps the thread for scans in a row, then ends it once idle", async () => {
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    assert.equal((await scan()).compiledNow, true);
    // Soon after: the same thread, its rules still compiled.
    for (let i = 0; i < 3; i++) {
      await pause(PAUSE_MS);
      assert.equal((await scan()).compiledNow, false);
    }
    await pause(IDLE_MS * 3);
    // The thread ended while idle: a fresh one compiles again.
    assert.equal((await scan()).compiledNow, true);
    assert.equal(pool.retired, 0, "a recycled thread is not an engine fault");
  });
});
