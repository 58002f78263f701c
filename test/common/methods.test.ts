/**
 * A method a path does not serve answers 405 with `Allow` (as FastAPI and DRF do), on every path
 * of both services' OpenAPI documents; an unknown path stays 404.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"];

type Spec = { paths: Record<string, Record<string, unknown>> };

/** Each documented path (parameters filled in) with the methods it documents. */
function documented(spec: Spec): Array<{ path: string; methods: string[] }> {
  return Object.entries(spec.paths).map(([template, ops]) => ({
    path: template.replace(/\{[^}]+\}/g, "1"),
    methods: Object.keys(ops).map((m) => m.toUpperCase()),
  }));
}

async function checkEveryPath(
  base: string,
  spec: Spec,
  headers: Record<string, string> = {},
): Promise<number> {
  let checked = 0;
  for (const { path, methods } of documented(spec)) {
    for (const method of METHODS.filter((m) => !methods.includes(m))) {
      const res = await fetch(base + path, { method, headers });
      const body = await json(res);
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(body.code, "method_not_allowed");
      const allow = (res.headers.get("allow") ?? "").split(", ");
      for (const m of methods) assert.ok(allow.includes(m), `${method} ${path}: Allow ${allow} lacks ${m}`);
      assert.ok(!allow.includes(method), `${method} ${path}: Allow names the refused method`);
      checked++;
    }
  }
  return checked;
}

describe("wrong methods answer 405 with Allow", () => {
  let files: TestFilesServer;
  let intel: TestIntelServer;
  let drop: () => Promise<void>;
  before(async () => {
    files = await startFilesServer();
    const db = await freshDatabase("sqlite");
    drop = db.drop;
    intel = await startIntelServer({ databaseUrl: db.url, worker: false });
  });
  after(async () => {
    await files?.close();
    await intel?.close();
    await drop?.();
  });

  it("on every path of the files service", async () => {
    const spec = (await json(await fetch(`${files.url}/openapi.json`))) as Spec;
    assert.ok((await checkEveryPath(files.url, spec)) > 20);
    const unknown = await fetch(`${files.url}/analyzer/nothing-here`, { method: "POST" });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get("allow"), null);
  });

  it("on every path of the intel service", async () => {
    const spec = (await json(await intel.api("/api/schema/"))) as Spec;
    const auth = { authorization: `Token ${intel.key}` };
    assert.ok((await checkEveryPath(intel.url, spec, auth)) > 20);
    const unknown = await fetch(`${intel.url}/api/nothing-here/`, { method: "DELETE", headers: auth });
    assert.equal(unknown.status, 404);
  });
});
