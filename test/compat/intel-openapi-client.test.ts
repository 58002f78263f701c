/**
 * A TypeScript client generated from the intel service's own /api/schema/ (openapi-typescript-codegen)
 * calls every operation against a real server with a loopback VirusTotal: the driver
 * (intel-client-driver.ts.txt, not part of the project's build) is type-checked strictly with the
 * generated code, then run.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const CODEGEN = path.join(
  path.dirname(require.resolve("openapi-typescript-codegen/package.json")),
  "bin/index.js",
);
const TSC = path.join(path.dirname(require.resolve("typescript/package.json")), "bin/tsc");

describe("a client generated from the intel /api/schema/", () => {
  let vt: FakeVendor;
  let server: TestIntelServer;
  let drop: () => Promise<void>;
  let dir: string;
  before(async () => {
    vt = await startFakeVirusTotal({ "domains/example.org": vtFixture("domain") });
    const db = await freshDatabase("sqlite");
    drop = db.drop;
    server = await startIntelServer({
      databaseUrl: db.url,
      env: { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_VENDOR_RETRIES: "0" },
    });
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
    dir = await mkdtemp(path.join(os.tmpdir(), "loupe-intel-client-"));
  });
  after(async () => {
    await server.close();
    await vt.close();
    await drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("names every operation, and the generated client calls each of them", async () => {
    const spec = await json(await server.api("/api/schema/"));
    const ids = Object.values(spec.paths).flatMap((p) =>
      Object.values(p as object).map((o) => o.operationId),
    );
    assert.ok(ids.length >= 7 && ids.every((id) => typeof id === "string"), `operation ids: ${ids}`);
    await writeFile(path.join(dir, "openapi.json"), JSON.stringify(spec));
    await run(
      process.execPath,
      [CODEGEN, "-i", "openapi.json", "-o", "gen", "-c", "fetch", "--useUnionTypes"],
      {
        cwd: dir,
      },
    );
    const driver = await readFile(new URL("./intel-client-driver.ts.txt", import.meta.url), "utf8");
    await writeFile(path.join(dir, "driver.ts"), driver);
    const compilerOptions = {
      strict: true,
      module: "commonjs",
      moduleResolution: "bundler",
      target: "es2022",
      lib: ["es2023", "dom"],
      types: [],
      outDir: "out",
    };
    await writeFile(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions, files: ["driver.ts"] }),
    );
    await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir }).catch((err) => {
      assert.fail(`the generated client does not type-check:\n${err.stdout}${err.stderr}`);
    });
    await writeFile(path.join(dir, "out/package.json"), '{"type":"commonjs"}');
    const { run: callAll } = require(path.join(dir, "out/driver.js"));
    const r = await callAll(server.url, server.key);

    assert.equal(r.firstStatus, "ENQUEUED");
    assert.equal(r.requestId, true);
    assert.equal(r.root, "example.org", "the defanged value was normalised and looked up");
    assert.ok(r.types > 5 && r.allTypes > 5);
    assert.ok(r.supported.OBSERVABLE.some((t: { id: string }) => t.id === "DOMAIN"));
    assert.deepEqual(r.modules, ["virustotal"]);
    for (const key of ["available_modules", "cached_entities", "git_commit_hash", "workers"])
      assert.ok(r.status.includes(key), key);
    assert.deepEqual(r.refused, { status: 400, code: "invalid_value" });
  });
});
