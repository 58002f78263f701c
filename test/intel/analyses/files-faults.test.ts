/**
 * A files service that misbehaves, stood up on loopback: an analysis it refuses, answers with
 * something that is not JSON, answers with more than INTEL_ANALYSIS_RESULT_MAX_BYTES or never
 * answers ends `failed` with its reason (`files_service_refused`, `bad_answer`,
 * `result_too_large`, `timeout`), leaves no file behind, and the same intel server goes on. A
 * thumbnail it refuses or sends too large leaves the analysis of an image done, without one.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { before, it } from "node:test";
import type { TestIntelServer } from "../../helpers/intel-server.ts";
import { type Json, json } from "../../helpers/json.ts";
import { serveOnLoopback } from "../../helpers/loopback.ts";
import { describeAnalyses } from "./fixtures.ts";
import { finishedAnalysis, uploadAnalysis } from "./requests.ts";

/** What the fake files service does with an upload whose name is the key. */
const BEHAVIOURS: Record<string, (res: http.ServerResponse) => void> = {
  "refused.bin": (res) => {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ detail: "The file is larger than the limit.", code: "file_too_large" }));
  },
  "garbage.bin": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("<html>not json</html>");
  },
  "huge.bin": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(`{"pad":"${"x".repeat(64 * 1024)}"}`);
  },
  // Never answers: the analysis' time limit ends it.
  "silent.bin": () => undefined,
  "refused-thumbnail.png": image,
  "huge-thumbnail.png": image,
};

/** An image's answer, small enough for INTEL_ANALYSIS_RESULT_MAX_BYTES. */
function image(res: http.ServerResponse) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      verdict: { level: "clean", reasons: [] },
      processors: { extractor: { success: true, analysis: { type: "image/png", extra: {} } } },
    }),
  );
}

/** `/converter/thumbnail` for the upload whose name is the key. */
const THUMBNAILS: Record<string, (res: http.ServerResponse) => void> = {
  "refused-thumbnail.png": (res) => {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ detail: "libvips gave up.", code: "internal_error" }));
  },
  // Past INTEL_ANALYSIS_THUMBNAIL_MAX_BYTES (1024 here).
  "huge-thumbnail.png": (res) => {
    res.writeHead(200, { "content-type": "image/png" });
    res.end(Buffer.alloc(64 * 1024));
  },
};

/** `close` ends the hanging answer too (serveOnLoopback closes every connection). */
function startFaultyFiles() {
  const server = http.createServer((req, res) => {
    if (req.method === "GET") return void res.end('{"status":"ok"}');
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("latin1");
    });
    req.on("end", () => {
      const name = /filename="([^"]+)"/.exec(body)?.[1] ?? "";
      const behaviours = req.url?.startsWith("/converter/thumbnail") ? THUMBNAILS : BEHAVIOURS;
      behaviours[name]?.(res);
    });
  });
  return serveOnLoopback(server);
}

describeAnalyses(
  "files analyses: a files service that misbehaves",
  { folder: "faults" },
  startFaultyFiles,
  ({ kind, folder, files }) => {
    let server: TestIntelServer;
    before(async () => {
      server = await folder.startServer({
        FILES_URL: files().url,
        INTEL_ANALYSIS_RESULT_MAX_BYTES: "1024",
        INTEL_ANALYSIS_TIMEOUT_MS: "1000",
        INTEL_ANALYSIS_THUMBNAIL_MAX_BYTES: "1024",
      });
    });

    const finished = async (name: string): Promise<Json> =>
      finishedAnalysis(server, await uploadAnalysis(server, `${kind} ${name}`, name));

    it("ends each analysis failed with its reason, and keeps no file", async () => {
      const expected: Record<string, string> = {
        "refused.bin": "files_service_refused",
        "garbage.bin": "bad_answer",
        "huge.bin": "result_too_large",
        "silent.bin": "timeout",
      };
      for (const [name, code] of Object.entries(expected)) {
        const got = await finished(name);
        assert.deepEqual([got.status, got.error?.code, got.result], ["failed", code, null], name);
      }
      assert.match((await finished("refused.bin")).error.detail, /larger than the limit/);
      assert.deepEqual(await readdir(path.join(folder.dataDir, "analyses")), []);
      assert.equal((await server.api("/api/analyses/")).status, 200, "the server goes on");
    });

    it("keeps an image's analysis done, without a thumbnail, when the thumbnail is refused or too large", async () => {
      for (const name of ["refused-thumbnail.png", "huge-thumbnail.png"]) {
        const got = await finished(name);
        assert.deepEqual([got.status, got.verdict, got.thumbnail], ["done", "clean", false], name);
        const png = await server.api(`/api/analyses/${got.id}/thumbnail/`);
        assert.deepEqual([png.status, (await json(png)).code], [404, "no_thumbnail"], name);
      }
      assert.deepEqual(await readdir(path.join(folder.dataDir, "analyses")), []);
    });
  },
);
