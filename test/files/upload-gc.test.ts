/**
 * Large uploads are followed by a young-generation collection (upload-gc.ts), so their body
 * buffers are freed by a scavenge before V8's external-memory limit starts a full mark-compact.
 * The server runs in this process: the collections are observed here, by V8's own gc entries.
 */
import assert from "node:assert/strict";
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { after, before, describe, it } from "node:test";
import { Type } from "typebox";
import type { Processor } from "../../src/files/processors/processor.ts";
import { bytesCounted, UPLOAD_BYTES_PER_COLLECTION, UPLOAD_COUNTED_FROM } from "../../src/files/upload-gc.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";

const sized: Processor = {
  name: "sized",
  url: "test",
  description: "answers the upload's size",
  needsHashes: false,
  fields: Type.Object({}),
  metadataSchema: Type.Null(),
  analysisSchema: Type.Record(Type.String(), Type.Unknown()),
  run: async (file) => ({ content: null, metadata: null, analysis: { size: file.size } }),
  engines: async () => ({ sized: { ready: true } }),
};

/** Young collections (scavenges, or minor mark-sweeps) seen while `work` runs, and a little after. */
async function youngCollectionsDuring(work: () => Promise<void>): Promise<number> {
  let young = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) young++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  try {
    await work();
    await new Promise((r) => setTimeout(r, 200)); // the collection is scheduled, then run
  } finally {
    observer.disconnect();
  }
  return young;
}

describe("young collections after large uploads", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ MAX_FILE_SIZE: String(2 * UPLOAD_BYTES_PER_COLLECTION) }, [sized]);
  });
  after(() => server.close());

  it("an upload past the threshold is followed by a young collection", async () => {
    const bytes = new Uint8Array(UPLOAD_BYTES_PER_COLLECTION + 1024 * 1024);
    const young = await youngCollectionsDuring(async () => {
      const body = await json(await postFile(`${server.url}/analyzer/sized`, bytes, "big.bin"));
      assert.equal(body.processors.sized.analysis.size, bytes.length);
    });
    assert.ok(young >= 1, `${young} young collections`);
  });

  it("counts an upload only once it is large: photos are left to V8", () => {
    const MiB = 1024 * 1024;
    assert.equal(bytesCounted(0, 64 * 1024), 0);
    assert.equal(bytesCounted(4 * MiB, 5 * MiB), 0, "a 5 MB photo counts nothing");
    assert.equal(bytesCounted(UPLOAD_COUNTED_FROM - 10, UPLOAD_COUNTED_FROM + 5), UPLOAD_COUNTED_FROM + 5);
    assert.equal(bytesCounted(20 * MiB, 20 * MiB + 65_536), 65_536);
  });

  it("leaves V8's gc function to no one: not this context, not a new one", async () => {
    assert.equal((globalThis as { gc?: unknown }).gc, undefined);
    const { runInNewContext } = await import("node:vm");
    assert.equal(runInNewContext("typeof gc"), "undefined");
  });
});
