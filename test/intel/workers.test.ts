/**
 * Workers as separate processes: one SIGKILLed mid-lookup (the lookup completes after a restart,
 * without duplicate entities), and two workers on PostgreSQL never taking the same job.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { after, describe, it } from "node:test";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { spawnIntelWorker } from "../helpers/child-server.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../helpers/fake-virustotal.ts";
import {
  freshDatabase,
  pollUntilDone,
  postgresSkipReason,
  startIntelServer,
} from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

const startWorkerProcess = (env: Record<string, string>): ChildProcess =>
  spawnIntelWorker({ INTEL_CONNECTORS: "virustotal", ...env });

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

describe("worker processes", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("finishes a lookup whose worker was SIGKILLed mid-job, without duplicating entities", async () => {
    const md5 = "44d88612fea8a8f36de82e1278abb02f";
    const vt: FakeVendor = await startFakeVirusTotal({ [`files/${md5}`]: vtFixture("file") });
    cleanups.push(() => vt.close());
    const db = await freshDatabase("sqlite");
    cleanups.push(() => db.drop());
    const server = await startIntelServer({ databaseUrl: db.url, worker: false });
    cleanups.push(() => server.close());
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
    const env = {
      DATABASE_URL: db.url,
      INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
      INTEL_JOB_LEASE_MS: "1500",
      INTEL_VENDOR_RETRIES: "0",
    };
    vt.delayMs = 5000;
    const body = { super_type: "OBSERVABLE", type: "MD5", value: md5, force: true };
    const first = await server.api("/api/request/", { method: "POST", body: JSON.stringify(body) });
    assert.equal(first.status, 201);
    const { id } = await json(first);

    const doomed = startWorkerProcess(env);
    await waitFor(async () => vt.calls.length >= 1);
    doomed.kill("SIGKILL");
    await new Promise((r) => doomed.once("exit", r));
    assert.equal((await server.services.requests.getRequest(id))?.status, "PROCESSING");

    vt.delayMs = 0;
    const rescuer = startWorkerProcess(env);
    cleanups.push(() => stop(rescuer));
    const done = await pollUntilDone(server, { ...body, force: false }, 30_000);
    assert.equal(done.status, 200);
    assert.equal((await server.services.requests.getRequest(id))?.status, "SUCCEEDED");
    assert.equal(vt.calls.length, 2, "the job was retried once after the lease expired");
    const entities = await server.services.store.db.selectFrom("entities").select(["name", "type"]).execute();
    const keys = entities.map((e) => `${e.type}:${e.name}`);
    assert.equal(new Set(keys).size, keys.length, "no duplicate entities");
  });

  it("two workers on PostgreSQL never process the same job", async (t) => {
    const skip = await postgresSkipReason();
    if (skip) return t.skip(skip);
    const vt = await startFakeVirusTotal({});
    cleanups.push(() => vt.close());
    vt.delayMs = 150;
    const db = await freshDatabase("postgres");
    cleanups.push(() => db.drop());
    const server = await startIntelServer({ databaseUrl: db.url, worker: false });
    cleanups.push(() => server.close());
    await addCredentials(server.services.store.db, "virustotal", { api_key: VT_KEY });
    const env = { DATABASE_URL: db.url, INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_WORKER_CONCURRENCY: "4" };
    const subjects = Array.from(
      { length: 24 },
      (_, i) => `${i.toString(16).padStart(2, "0")}${"a".repeat(30)}`,
    );
    for (const value of subjects) {
      const res = await server.api("/api/request/", {
        method: "POST",
        body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value }),
      });
      assert.equal(res.status, 201);
    }
    const workers = [startWorkerProcess(env), startWorkerProcess(env)];
    for (const w of workers) cleanups.push(() => stop(w));
    await waitFor(async () => {
      const rows = await server.services.store.db.selectFrom("requests").select("status").execute();
      return rows.every((r) => r.status === "SUCCEEDED");
    }, 60_000);
    const perSubject = new Map<string, number>();
    for (const call of vt.calls) perSubject.set(call, (perSubject.get(call) ?? 0) + 1);
    assert.equal(perSubject.size, subjects.length);
    assert.deepEqual([...new Set(perSubject.values())], [1], "each lookup ran exactly once");
  });
});
