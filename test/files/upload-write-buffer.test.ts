/**
 * Large bodies are written to their temp file with a larger buffer (writeBufferFor): the choice
 * itself, and a large upload through a real server arriving whole (size and sha256), or refused
 * past the size limit without leaving a temp file.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { Type } from "typebox";
import type { Processor } from "../../src/files/processors/processor.ts";
import {
  DEFAULT_WRITE_BUFFER,
  LARGE_UPLOAD,
  LARGE_WRITE_BUFFER,
  writeBufferFor,
} from "../../src/files/upload.ts";
import {
  postFile,
  startFilesServer,
  type TestFilesServer,
  waitForNoLeftovers,
} from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";

describe("write buffer of an upload's temp file", () => {
  it("is the configured one below LARGE_UPLOAD or without a length, LARGE_WRITE_BUFFER from it", () => {
    assert.equal(writeBufferFor(Number.NaN, {}), DEFAULT_WRITE_BUFFER);
    assert.equal(writeBufferFor(10 * 1024 * 1024, { writeBuffer: 65536 }), 65536);
    assert.equal(writeBufferFor(LARGE_UPLOAD - 1, {}), DEFAULT_WRITE_BUFFER);
    assert.equal(writeBufferFor(LARGE_UPLOAD, {}), LARGE_WRITE_BUFFER);
    // A larger configured buffer is never made smaller.
    assert.equal(
      writeBufferFor(LARGE_UPLOAD, { writeBuffer: 2 * LARGE_WRITE_BUFFER }),
      2 * LARGE_WRITE_BUFFER,
    );
  });
});

const hashed: Processor = {
  name: "hashed",
  url: "test",
  description: "answers the upload's size and sha256",
  fields: Type.Object({}),
  metadataSchema: Type.Null(),
  analysisSchema: Type.Record(Type.String(), Type.Unknown()),
  run: async (file) => ({
    content: null,
    metadata: null,
    analysis: { size: file.size, sha256: file.hashes?.sha256 },
  }),
  engines: async () => ({ hashed: { ready: true } }),
};

describe("a large upload to a temp file", () => {
  const bytes = new Uint8Array(LARGE_UPLOAD + 123_457);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  let server: TestFilesServer;
  let tight: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ MAX_FILE_SIZE: String(bytes.length) }, [hashed]);
    tight = await startFilesServer({ MAX_FILE_SIZE: String(bytes.length - 1) }, [hashed]);
  });
  after(async () => {
    await server.close();
    await tight.close();
  });

  it("arrives whole", async () => {
    const body = await json(await postFile(`${server.url}/analyzer/hashed`, bytes, "large.bin"));
    assert.equal(body.processors.hashed.analysis.size, bytes.length);
    assert.equal(body.processors.hashed.analysis.sha256, createHash("sha256").update(bytes).digest("hex"));
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("one byte past the limit is refused and leaves no temp file", async () => {
    const res = await postFile(`${tight.url}/analyzer/hashed`, bytes, "large.bin");
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "file_too_large");
    assert.deepEqual(await waitForNoLeftovers(tight), []);
  });
});
