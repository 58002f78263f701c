/** Starts a real files service on a random loopback port, with its own temp folder. */
import assert from "node:assert/strict";
import type { Dirent } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readCommonConfig } from "../../src/common/config.ts";
import type { App } from "../../src/common/http.ts";
import { createLogger } from "../../src/common/logger.ts";
import { readFilesConfig } from "../../src/files/config.ts";
import type { Processor } from "../../src/files/processors/processor.ts";
import { buildFilesServer } from "../../src/files/server.ts";
import { json } from "./json.ts";

export interface TestFilesServer {
  url: string;
  app: App;
  tmpDir: string;
  /** Names of the files left in the upload temp folder. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startFilesServer(
  env: Record<string, string> = {},
  processors?: Processor[],
): Promise<TestFilesServer> {
  const tmpDir = await mkdtemp(path.join(os.tmpdir(), "loupe-test-files-"));
  const fullEnv = { ...process.env, FILES_PORT: "0", FILES_TMP_DIR: tmpDir, ...env };
  const common = readCommonConfig(fullEnv);
  const files = readFilesConfig(fullEnv);
  const app = await buildFilesServer({
    common,
    files,
    logger: createLogger(process.env.LOG_LEVEL ?? "silent", "files-test"),
    processors,
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    tmpDir,
    leftovers: async () => (await listWhileRemoved(tmpDir)).filter((e) => e.isFile()).map((e) => e.name),
    close: async () => {
      await app.close();
      await rm(tmpDir, { recursive: true, force: true });
    },
  };
}

/** POSTs `bytes` as the multipart field `file` (plus text fields) with fetch. */
export async function postFile(
  url: string,
  bytes: Uint8Array | string,
  filename = "sample.bin",
  fields: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("file", new Blob([typeof bytes === "string" ? bytes : new Uint8Array(bytes)]), filename);
  return fetch(url, { method: "POST", body: form, ...(signal ? { signal } : {}) });
}

/** POSTs a file to the extractor; the HTTP status is always 200 (failures are in the entry). */
export async function extractFile(server: TestFilesServer, bytes: Uint8Array | string, name = "upload.bin") {
  const res = await postFile(`${server.url}/analyzer/extractor`, bytes, name);
  assert.equal(res.status, 200);
  const body = await json(res);
  const entry = body.processors.extractor;
  return { body, entry, analysis: entry.analysis, content: body.content as string };
}

/** Like extractFile, and the extraction must have succeeded. */
export async function extractOk(server: TestFilesServer, bytes: Uint8Array | string, name = "upload.bin") {
  const result = await extractFile(server, bytes, name);
  assert.equal(result.body.success, true, JSON.stringify(result.entry));
  return result;
}

/** Waits until the temp folder is empty (cleanup runs right after the response is sent). */
export async function waitForNoLeftovers(server: TestFilesServer, timeoutMs = 2000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let left = await server.leftovers();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    left = await server.leftovers();
  }
  return left;
}

/**
 * Everything under `dir`, listed again when a folder goes while it is read (an upload's scratch
 * folder is renamed, then removed, as its request ends).
 */
export async function listWhileRemoved(dir: string): Promise<Dirent[]> {
  for (;;) {
    try {
      return await readdir(dir, { recursive: true, withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
}
