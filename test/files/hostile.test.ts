/**
 * A short hostile-input run against every files endpoint (the long one is `./loupe bench fuzz`):
 * never a 5xx, every 4xx in the error model, every answer in time, no temp file left behind.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { startFilesServer, type TestFilesServer, waitForNoLeftovers } from "../helpers/files-server.ts";
import { hostileRequest, judgeAnswer, seedFiles, sendHostile } from "../helpers/hostile.ts";

const FIELD_LIMIT = 64 * 1024;
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

describe("hostile input on the files service", () => {
  let server: TestFilesServer;
  let seeds: Buffer[];
  before(async () => {
    server = await startFilesServer({
      MAX_FILE_SIZE: "1000000",
      MAX_FORM_FIELD_SIZE: String(FIELD_LIMIT),
      MAX_IMAGE_PIXELS: "4000000",
      SCAN_TIMEOUT_MS: "5000",
      EXTRACT_TIMEOUT_MS: "10000",
    });
    seeds = await seedFiles();
  });
  after(() => server.close());

  it(`survives ${RUNS} generated hostile requests`, async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(hostileRequest(seeds, FIELD_LIMIT), async (r) => {
        const answer = await sendHostile(server.url, r);
        const key = `${r.kind} → ${answer.status}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        assert.equal(judgeAnswer(r, answer), null);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261122), endOnFailure: true },
    );
    assert.deepEqual(await waitForNoLeftovers(server, 5000), [], "temp files left behind");
    const health = await fetch(`${server.url}/`);
    assert.equal(health.status, 200, "the service still answers");
    if (process.env.FUZZ_VERBOSE) console.log(seen);
    assert.ok(seen.size > 5, `the run covered several kinds of requests: ${[...seen.keys()].join(", ")}`);
  });
});
