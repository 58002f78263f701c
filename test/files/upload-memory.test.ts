import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type App, createHttpServer } from "../../src/common/http.ts";
import { createLogger } from "../../src/common/logger.ts";
import { installUploads, receiveUpload } from "../../src/files/upload.ts";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";

/**
 * A real HTTP server with one route that asks for small uploads in memory and reports what it
 * got: bytes or a temp file, and whether a temp file existed while the request was handled.
 */
describe("uploads kept in memory", () => {
  let app: App;
  let url: string;
  let parent: string;
  before(async () => {
    parent = await mkdtemp(path.join(os.tmpdir(), "loupe-test-upload-mem-"));
    app = await createHttpServer({
      name: "upload-test",
      description: "upload test",
      version: "0",
      logger: createLogger("silent", "upload-test"),
      specPath: "/openapi.json",
      docsPath: "/docs",
      rateLimitPerMinute: 0,
    });
    const limits = await installUploads(app, {
      maxFileSize: 4000,
      maxFieldSize: 100,
      tmpDir: parent,
      memoryMax: 8000,
    });
    app.post("/echo", async (req) => {
      const { file } = await receiveUpload(req, limits, { hash: true, memory: true });
      const tempFiles = (await readdir(limits.tmpDir)).length;
      return {
        inMemory: file.bytes !== undefined,
        text: file.bytes?.toString("latin1") ?? null,
        size: file.size,
        sha256: file.hashes?.sha256,
        filename: file.filename,
        tempFiles,
      };
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  after(async () => {
    await app.close();
    await rm(parent, { recursive: true, force: true });
  });

  it("keeps a body within memoryMax as bytes, hashed, with no temp file", async () => {
    const res = await postFile(`${url}/echo`, "hello memory", "../a\u0001.txt");
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.inMemory, true);
    assert.equal(body.text, "hello memory");
    assert.equal(body.size, 12);
    assert.equal(body.sha256, createHash("sha256").update("hello memory").digest("hex"));
    // The name as sent, its control characters dropped (a name is text, never a path: common/file-names.ts).
    assert.equal(body.filename, "../a.txt");
    assert.equal(body.tempFiles, 0);
  });

  it("still refuses a file over the size limit when it would fit in memory", async () => {
    const res = await postFile(`${url}/echo`, new Uint8Array(5000), "big.bin");
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "file_too_large");
  });

  it("uses a temp file when the body has no Content-Length (chunked)", async () => {
    const boundary = "ChunkedBoundary";
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${url}/echo`, {
        method: "POST",
        headers: {
          "content-type": `multipart/form-data; boundary=${boundary}`,
          "transfer-encoding": "chunked",
        },
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (c) => {
          text += c;
        });
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.bin"\r\n\r\n`);
      req.write("chunked bytes");
      req.end(`\r\n--${boundary}--\r\n`);
    });
    const parsed = JSON.parse(body);
    assert.equal(parsed.inMemory, false);
    assert.equal(parsed.size, 13);
    assert.equal(parsed.tempFiles, 1);
  });
});
