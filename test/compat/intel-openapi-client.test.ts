/**
 * A TypeScript client generated from the intel service's own /api/schema/ (openapi-typescript-codegen)
 * calls every operation against a real server with a loopback VirusTotal: the driver
 * (intel-client-driver.ts.txt, not part of the project's build) is type-checked strictly with the
 * generated code, then run.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import { generatedClientDriver } from "../helpers/generated-client.ts";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

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
    // biome-ignore lint/suspicious/noExplicitAny: the driver's summary is read loosely, as JSON.
    const callAll = await generatedClientDriver<(url: string, key: string) => Promise<any>>(
      dir,
      spec,
      new URL("./intel-client-driver.ts.txt", import.meta.url),
    );
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
