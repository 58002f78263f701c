/**
 * A short hostile-input run against every files endpoint (the long one is `./loupe bench fuzz`):
 * never a 5xx, every 4xx in the error model, every answer in time, no temp file left behind.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { request } from "undici";
import { startFilesServer, type TestFilesServer, waitForNoLeftovers } from "../helpers/files-server.ts";
import { type HostileRequest, hostileRequest, seedFiles } from "../helpers/hostile.ts";

const FIELD_LIMIT = 64 * 1024;
const ANSWER_WITHIN_MS = 30_000;
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

export async function send(
  url: string,
  r: HostileRequest,
): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const res = await request(url + r.path, {
    method: "POST",
    headers: r.headers,
    body: r.body,
    headersTimeout: ANSWER_WITHIN_MS,
    bodyTimeout: ANSWER_WITHIN_MS,
  });
  const body = await res.body.text();
  return { status: res.statusCode, body, ms: performance.now() - started };
}

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
        const { status, body, ms } = await send(server.url, r);
        seen.set(`${r.kind} → ${status}`, (seen.get(`${r.kind} → ${status}`) ?? 0) + 1);
        assert.ok(ms < ANSWER_WITHIN_MS, `${r.kind} on ${r.path} took ${ms} ms`);
        if (status === 501) {
          // An analyzer whose engine has not landed yet answers 501 not_implemented by design.
          assert.equal(JSON.parse(body).code, "not_implemented");
          return;
        }
        assert.ok(status < 500, `${r.kind} on ${r.path} → ${status}: ${body.slice(0, 300)}`);
        if (status >= 400) {
          const parsed = JSON.parse(body);
          assert.equal(typeof parsed.detail, "string", body);
          assert.match(parsed.code, /^[a-z_]+$/, body);
        }
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
