import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { Type } from "typebox";
import type { Processor } from "../../src/files/processors/processor.ts";
import {
  postFile,
  startFilesServer,
  type TestFilesServer,
  waitForNoLeftovers,
} from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";

/** A processor that reports what the upload pipeline handed it, so the pipeline itself is observable. */
const echo: Processor = {
  name: "echo",
  url: "test",
  description: "echoes the upload",
  fields: Type.Object({ note: Type.String() }),
  metadataSchema: Type.Null(),
  analysisSchema: Type.Record(Type.String(), Type.Unknown()),
  run: async (file, fields) => ({
    content: null,
    metadata: null,
    analysis: { size: file.size, hashes: file.hashes, filename: file.filename, fields },
  }),
  engines: async () => ({ echo: { ready: true } }),
};

describe("upload pipeline", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ MAX_FILE_SIZE: "100000" }, [echo]);
  });
  after(() => server.close());

  it("streams the file, hashes it, passes text fields and removes the temp file", async () => {
    const res = await postFile(`${server.url}/analyzer/echo`, "hello world", "../../etc/\u0000evil.txt", {
      note: "n1",
    });
    assert.equal(res.status, 200);
    const body = await json(res);
    const analysis = body.processors.echo.analysis;
    assert.equal(analysis.size, 11);
    assert.equal(analysis.hashes.md5, "5eb63bbbe01eeed093cb22bb8f5acdc3");
    assert.equal(analysis.hashes.sha1, "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed");
    assert.equal(analysis.hashes.sha256, "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
    assert.equal(
      analysis.hashes.sha512,
      "309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f",
    );
    // A name is text, never a path here: kept whole, without its control characters.
    assert.equal(analysis.filename, "../../etc/evil.txt");
    assert.deepEqual(analysis.fields, { note: "n1" });
    assert.equal(body.success, true);
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("refuses an upload of twice the limit with 400 and leaves no temp file", async () => {
    const res = await postFile(`${server.url}/analyzer/echo`, new Uint8Array(200_000), "big.bin");
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "file_too_large");
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("answers 400 for a missing file, a non-multipart body and a second file", async () => {
    const form = new FormData();
    form.append("note", "x");
    let res = await fetch(`${server.url}/analyzer/echo`, { method: "POST", body: form });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "missing_file");

    res = await fetch(`${server.url}/analyzer/echo`, {
      method: "POST",
      body: JSON.stringify({ file: "x" }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "not_multipart");

    res = await fetch(`${server.url}/analyzer/echo`, {
      method: "POST",
      body: "raw",
      headers: { "content-type": "application/octet-stream" },
    });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "not_multipart");

    const two = new FormData();
    two.append("file", new Blob(["a"]), "a");
    two.append("file", new Blob(["b"]), "b");
    res = await fetch(`${server.url}/analyzer/echo`, { method: "POST", body: two });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "too_many_files");

    const other = new FormData();
    other.append("attachment", new Blob(["a"]), "a");
    res = await fetch(`${server.url}/analyzer/echo`, { method: "POST", body: other });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "unexpected_file");
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("answers 400 for a truncated multipart body", async () => {
    const boundary = "XyZ";
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\npartial`;
    const res = await fetch(`${server.url}/analyzer/echo`, {
      method: "POST",
      body,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "invalid_multipart");
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("removes the temp file when the client aborts mid-upload", async () => {
    const { port } = new URL(server.url);
    const boundary = "AbortBoundary";
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/analyzer/echo",
        headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": "90000" },
      });
      req.on("error", () => resolve());
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n`);
      req.write(Buffer.alloc(40_000));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("sweeps temp folders of dead processes at start and removes its own on close", async () => {
    const { mkdir, writeFile, readdir } = await import("node:fs/promises");
    const path = await import("node:path");
    const stale = path.join(server.tmpDir, "999999999-deadbeef");
    await mkdir(stale);
    await writeFile(path.join(stale, "orphan"), "x");
    const second = await startFilesServer({ FILES_TMP_DIR: server.tmpDir });
    const entries = await readdir(server.tmpDir);
    assert.ok(!entries.includes("999999999-deadbeef"), "the dead process's folder was swept");
    assert.equal(entries.length, 2, "each live server has its own folder");
    await second.app.close();
    assert.equal((await readdir(server.tmpDir)).length, 1, "a closed server removes its folder");
  });

  it("creates temp files readable by the owner only", async () => {
    const { stat } = await import("node:fs/promises");
    const dirMode = (await stat(server.tmpDir)).mode & 0o777;
    assert.equal(dirMode & 0o077, 0, `temp folder mode ${dirMode.toString(8)}`);
  });
});

describe("files service basics", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  it("reports health and engine readiness", async () => {
    const res = await fetch(`${server.url}/`);
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.status, "ok");
    assert.equal(body.service, "files");
    assert.equal(body.engines.sharp.ready, true);
    assert.ok(res.headers.get("x-request-id"));
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  });

  it("documents every operation in OpenAPI 3.1 and serves the docs locally", async () => {
    const spec = await json(await fetch(`${server.url}/openapi.json`));
    assert.match(spec.openapi, /^3\.1/);
    for (const p of [
      "/analyzer/extractor",
      "/analyzer/antivirus",
      "/analyzer/rulematch",
      "/converter/thumbnail",
    ]) {
      const op = spec.paths[p]?.post;
      assert.ok(op, `${p} documented`);
      assert.ok(op.requestBody.content["multipart/form-data"], `${p} takes multipart`);
    }
    // Form bodies are named components (`Body_<operation id>`), as in Mandolin's document.
    const bodyRef: string =
      spec.paths["/analyzer/rulematch"].post.requestBody.content["multipart/form-data"].schema.$ref;
    const rulesField = spec.components.schemas[bodyRef.replace("#/components/schemas/", "")];
    assert.ok(rulesField.properties.rules, "rulematch documents its rules field");
    const docs = await fetch(`${server.url}/docs/`);
    assert.equal(docs.status, 200);
    const html = await docs.text();
    assert.doesNotMatch(html, /https?:\/\/(?!127\.0\.0\.1)[a-z0-9.-]+\/[^"']*\.(js|css)/i, "no CDN assets");
  });

  it("exposes Prometheus metrics", async () => {
    await fetch(`${server.url}/`);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(text, /http_request_duration_seconds_bucket/);
    assert.match(text, /process_resident_memory_bytes/);
  });

  it("answers unknown routes with the error model", async () => {
    const res = await fetch(`${server.url}/nope`);
    assert.equal(res.status, 404);
    assert.deepEqual(Object.keys(await json(res)).sort(), ["code", "detail"]);
  });
});
