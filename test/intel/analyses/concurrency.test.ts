/**
 * INTEL_ANALYSIS_CONCURRENCY without a clock: a files service stand-in on loopback holds every
 * `/analyzer/all` call until the test releases it and counts the calls in flight. Five files are
 * uploaded with a limit of two; the test releases one call each time the stand-in holds all it may
 * (two, then fewer at the end) and intel has answered one more request, so a call past the limit
 * would be held beside them and counted.
 * The most ever held at once must be exactly the limit, and every analysis ends done.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { describeOnEachDatabase } from "../../helpers/databases.ts";
import type { TestIntelServer } from "../../helpers/intel-server.ts";
import { serveOnLoopback } from "../../helpers/loopback.ts";
import { finishedAnalysis, uploadAnalysis } from "./requests.ts";

const LIMIT = 2;
const FILES = 5;
const ANSWER = JSON.stringify({ verdict: { level: "clean", reasons: [] }, processors: {} });

/** The stand-in: `held` calls wait for `releaseOne`; `until` resolves once a condition on it holds. */
function startHoldingFiles() {
  const held: http.ServerResponse[] = [];
  const waiters: Array<{ test: () => boolean; resolve: () => void }> = [];
  const state = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const changed = () => {
    for (const w of [...waiters])
      if (w.test()) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  };
  const server = http.createServer((req, res) => {
    if (req.method === "GET") return void res.end('{"status":"ok"}');
    state.calls++;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    req.resume();
    held.push(res);
    changed();
  });
  return {
    state,
    until: (test: () => boolean) =>
      new Promise<void>((resolve) => {
        waiters.push({ test, resolve });
        changed();
      }),
    releaseOne() {
      const res = held.shift();
      assert.ok(res, "a call to release");
      state.inFlight--;
      res.writeHead(200, { "content-type": "application/json" }).end(ANSWER);
    },
    serving: serveOnLoopback(server),
  };
}

describe("files analyses: INTEL_ANALYSIS_CONCURRENCY", () => {
  describeOnEachDatabase(
    (kind) => `on ${kind}`,
    (db) => {
      const { kind } = db;
      let files: ReturnType<typeof startHoldingFiles>;
      let loopback: Awaited<ReturnType<typeof startHoldingFiles>["serving"]>;
      let server: TestIntelServer;
      let dataDir: string;
      before(async () => {
        files = startHoldingFiles();
        loopback = await files.serving;
        dataDir = await mkdtemp(path.join(os.tmpdir(), "loupe-analyses-concurrency-"));
        server = await db.startIntelServer({
          env: {
            INTEL_CONNECTORS: "",
            DATA_DIR: dataDir,
            FILES_URL: loopback.url,
            INTEL_ANALYSIS_CONCURRENCY: String(LIMIT),
            INTEL_ANALYSIS_CACHE_SECONDS: "0",
          },
        });
      });
      after(async () => {
        await server?.close();
        await loopback?.close();
        await rm(dataDir, { recursive: true, force: true });
      });

      it(`sends at most ${LIMIT} files to the files service at once, and analyses them all`, async () => {
        const ids: string[] = [];
        for (let i = 0; i < FILES; i++)
          ids.push(await uploadAnalysis(server, `${kind} file ${i}`, `file-${i}.txt`));
        // Each call is released only once the stand-in holds every call the limit lets through, and
        // after a round trip through intel: a call past the limit, already started, lands first.
        for (let released = 0; released < FILES; released++) {
          const expected = Math.min(LIMIT, FILES - released);
          await files.until(() => files.state.inFlight >= expected);
          assert.equal((await server.api("/api/analyses/")).status, 200);
          assert.equal(files.state.inFlight, expected, `held at once, ${released} released`);
          files.releaseOne();
        }
        await files.until(() => files.state.calls === FILES && files.state.inFlight === 0);
        for (const id of ids) {
          const got = await finishedAnalysis(server, id);
          assert.deepEqual([got.status, got.verdict], ["done", "clean"], JSON.stringify(got.error));
        }
        assert.equal(files.state.maxInFlight, LIMIT);
        assert.equal(files.state.calls, FILES);
      });
    },
  );
});
