/**
 * Faults that are quick to provoke: a flapping vendor next to a rate-limiting one (SQLite and
 * PostgreSQL), the API process killed and restarted while requests are queued, jobs held by a dead
 * process taken back at once, and a failed job retried soon rather than after its lease. The long
 * runs (PostgreSQL restarted, workers killed again and again) are `./loupe bench faults`.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, describe, it } from "node:test";
import SqliteDatabase from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { createJobQueue, deadWorker, newWorkerId } from "../../src/intel/queue/jobs.ts";
import { createToken, createUser } from "../../src/intel/store/accounts.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { isDatabaseUnavailable, openStore } from "../../src/intel/store/db.ts";
import type { Database } from "../../src/intel/store/schema.ts";
import { spawnIntelWorker, startChildServer } from "../helpers/child-server.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import {
  type FaultVendor,
  fileSubjects,
  hashlookupAnswer,
  startFaultVendor,
  virusTotalAnswer,
} from "../helpers/fault-vendor.ts";
import {
  type DbKind,
  freshDatabase,
  pollUntilDone,
  postgresSkipReason,
  startIntelServer,
  type TestIntelServer,
} from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";
import { startTcpProxy } from "../helpers/tcp-proxy.ts";

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const md5Request = (value: string) => ({ super_type: "OBSERVABLE", type: "MD5", value });

/** Subjects named with two spellings by vendors must still be one entity each. */
async function duplicateEntities(db: Kysely<Database>): Promise<number> {
  const r = await sql<{ n: number }>`
    select count(*) as n from (
      select 1 from entities group by super_type, type, lower(name) having count(*) > 1
    ) d`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/** An intel server on a fresh database asking these two fakes (everything closed after the file). */
async function serverAsking(
  kind: DbKind,
  vt: FaultVendor,
  circl: FaultVendor,
  env: Record<string, string> = {},
): Promise<TestIntelServer> {
  const db = await freshDatabase(kind);
  const server = await startIntelServer({
    databaseUrl: db.url,
    env: {
      INTEL_CONNECTORS: "virustotal,hashlookup",
      INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
      INTEL_VENDOR_URL_HASHLOOKUP: circl.url,
      ...env,
    },
  });
  cleanups.push(
    () => vt.close(),
    () => circl.close(),
    () => db.drop(),
    () => server.close(),
  );
  await addCredentials(server.services.store.db, "virustotal", { api_key: "k" });
  return server;
}

describeOnEachDatabase("vendors that flap and rate-limit,", (db) => {
  it("ends every request SUCCEEDED with the answering vendors' data or FAILED with each reason", async () => {
    const vt = await startFaultVendor({ healthy: virusTotalAnswer, fault: "flap", flapMs: 300 });
    const circl = await startFaultVendor({
      healthy: hashlookupAnswer,
      fault: "rate_limit",
      ratePerSecond: 3,
      retryAfterSeconds: 1,
    });
    const server = await serverAsking(db.kind, vt, circl, {
      INTEL_VENDOR_RETRIES: "2",
      INTEL_VENDOR_MAX_BACKOFF_MS: "1500",
      INTEL_VENDOR_TIMEOUT_MS: "2000",
      INTEL_VENDOR_CONCURRENCY: "16",
      INTEL_WORKER_CONCURRENCY: "16",
      INTEL_FAILURE_COOLDOWN_MS: "600000",
    });

    const subjects = fileSubjects(12, `flap-${db.kind}`);
    for (const s of subjects) {
      const res = await server.api("/api/request/", {
        method: "POST",
        body: JSON.stringify(md5Request(s)),
      });
      assert.equal(res.status, 201);
    }
    const answers = await Promise.all(subjects.map((s) => pollUntilDone(server, md5Request(s), 60_000)));
    const evidence = { virustotal: "vt_score", hashlookup: "known_file" } as const;
    let failed = 0;
    for (const [i, res] of answers.entries()) {
      const body = await json(res);
      assert.ok([200, 502].includes(res.status), `${subjects[i]}: HTTP ${res.status}`);
      if (res.status === 502) {
        failed++;
        assert.match(body.errors.virustotal, /^http_error: /, "the flapping vendor's reason");
        assert.match(body.errors.hashlookup, /^rate_limited: /, "the rate-limiting vendor's reason");
        continue;
      }
      for (const vendor of ["virustotal", "hashlookup"] as const) {
        const outcome = body.sources[vendor];
        if (outcome.status === "ok")
          assert.ok(body.root_entity.attributes[evidence[vendor]], `${vendor}'s data is in the answer`);
        else assert.match(outcome.error, /^(http_error|rate_limited): /);
      }
    }
    assert.ok((circl.answers.get("429") ?? 0) > 0, "the vendor did rate-limit");
    assert.ok(
      answers.length - failed > 0 && (circl.answers.get("200") ?? 0) >= 3,
      "waiting as Retry-After asked got answers",
    );
    for (const v of [vt, circl])
      assert.ok(Math.max(...v.calls.values()) <= 3, "at most one call and two retries per subject");
    const store = server.services.store.db;
    const requests = await store.selectFrom("requests").select(["subject_key", "status"]).execute();
    assert.equal(requests.length, subjects.length, "one request per subject");
    assert.ok(requests.every((r) => r.status === "SUCCEEDED" || r.status === "FAILED"));
    assert.equal((await store.selectFrom("jobs").selectAll().execute()).length, 0, "no job left");
    assert.equal(await duplicateEntities(store), 0, "no duplicate entities");
  });
});

describe("a vendor answering garbage with HTTP 200", () => {
  it("records bad_response and keeps the other vendor's data; the garbage never becomes facts", async () => {
    const vt = await startFaultVendor({ healthy: virusTotalAnswer });
    const circl = await startFaultVendor({ healthy: hashlookupAnswer, fault: "garbage" });
    const server = await serverAsking("sqlite", vt, circl);
    for (const s of fileSubjects(7, "garbage")) {
      const res = await pollUntilDone(server, md5Request(s));
      assert.equal(res.status, 200);
      const doc = await json(res);
      assert.equal(doc.sources.virustotal.status, "ok");
      assert.ok(doc.root_entity.attributes.vt_score);
      assert.equal(doc.sources.hashlookup.status, "error", JSON.stringify(doc.sources.hashlookup));
      assert.match(doc.sources.hashlookup.error, /^bad_response: /);
      assert.equal(doc.root_entity.attributes.known_file, undefined, "no claim from garbage");
    }
    assert.equal(circl.answers.get("garbage"), 7, "each kind of garbage was served once");
  });
});

describe("the API process restarted while requests are queued", () => {
  it("finishes the queued and running requests after a SIGKILL and answers the repeated call with 200", async () => {
    const vt = await startFaultVendor({ healthy: virusTotalAnswer, delayMs: 1500 });
    const db = await freshDatabase("sqlite");
    cleanups.push(
      () => vt.close(),
      () => db.drop(),
    );
    const store = await openStore(db.url);
    const user = await createUser(store.db, "restart", "restart-password", false);
    const { key } = await createToken(store.db, user.id);
    await addCredentials(store.db, "virustotal", { api_key: "k" });
    await store.close();
    // The default job lease (two minutes): the restarted process must not wait for it.
    const env = {
      LOG_LEVEL: "silent",
      DATABASE_URL: db.url,
      INTEL_CONNECTORS: "virustotal",
      INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
      INTEL_WORKER_CONCURRENCY: "1",
      INTEL_VENDOR_RETRIES: "0",
    };
    const first = await startChildServer(["intel", "serve"], env, "/", "INTEL_PORT");
    const post = (url: string, value: string) =>
      fetch(`${url}/api/request/`, {
        method: "POST",
        headers: { authorization: `Token ${key}`, "content-type": "application/json" },
        body: JSON.stringify(md5Request(value)),
      });
    const subjects = fileSubjects(3, "restart");
    const ids: string[] = [];
    for (const s of subjects) {
      const res = await post(first.url, s);
      assert.equal(res.status, 201);
      ids.push((await json(res)).id);
    }
    while (vt.calls.size === 0) await new Promise((r) => setTimeout(r, 20));
    const killed = new Promise((r) => first.child.once("exit", r));
    first.child.kill("SIGKILL"); // one lookup running, two queued
    await killed;

    const second = await startChildServer(
      ["intel", "serve"],
      { ...env, INTEL_PORT: new URL(first.url).port },
      "/",
      "INTEL_PORT",
    );
    cleanups.push(() => second.stop());
    const deadline = Date.now() + 60_000; // well under the two-minute lease
    for (const [i, s] of subjects.entries()) {
      let res = await post(second.url, s);
      while (res.status === 201 && Date.now() < deadline) {
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 100));
        res = await post(second.url, s);
      }
      assert.equal(res.status, 200, `${s} answered after the restart`);
      assert.ok((await json(res)).root_entity.attributes.vt_score);
      const status = await fetch(`${second.url}/api/request/${ids[i]}/`, {
        headers: { authorization: `Token ${key}` },
      });
      assert.equal((await json(status)).status, "SUCCEEDED", "the same request finished");
    }
    const calls = [...vt.calls.values()];
    assert.equal(calls.length, 3);
    assert.ok(
      calls.filter((n) => n === 2).length <= 1,
      "only the lookup running at the kill was asked again",
    );
  });
});

describe("the database unavailable for a moment", () => {
  it("answers 503 database_unavailable with Retry-After, not a 500", async () => {
    const db = await freshDatabase("sqlite");
    const server = await startIntelServer({ databaseUrl: db.url, worker: false });
    cleanups.push(
      () => db.drop(),
      () => server.close(),
    );
    // Another process holding the write lock past the busy timeout: SQLite's "database is locked".
    const blocker = new SqliteDatabase(db.url.slice("sqlite:".length));
    blocker.exec("begin immediate");
    try {
      const res = await server.api("/api/request/", {
        method: "POST",
        body: JSON.stringify(md5Request("0".repeat(32))),
      });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "2");
      assert.deepEqual(await json(res), {
        detail: "The database is unavailable for a moment; retry shortly.",
        code: "database_unavailable",
      });
    } finally {
      blocker.exec("rollback");
      blocker.close();
    }
    const again = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify(md5Request("0".repeat(32))),
    });
    assert.equal(again.status, 201, "answers again once the database is back");
  });
});

describe("PostgreSQL going away, seen through a proxy that drops every connection as a restart does", {
  skip: await postgresSkipReason(),
}, () => {
  it("a worker waits for a database not reachable yet, and finishes requests whose connections were cut", async () => {
    const vt = await startFaultVendor({ healthy: virusTotalAnswer, delayMs: 600 });
    const db = await freshDatabase("postgres");
    const direct = new URL(db.url);
    const proxy = await startTcpProxy(
      { host: direct.hostname, port: Number(direct.port || 5432) },
      { listen: false },
    );
    const proxied = new URL(db.url);
    proxied.port = String(proxy.port);
    const env = {
      INTEL_CONNECTORS: "virustotal",
      INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
      INTEL_VENDOR_RETRIES: "0",
    };
    const server = await startIntelServer({ databaseUrl: db.url, worker: false, env });
    cleanups.push(
      () => vt.close(),
      () => db.drop(),
      () => server.close(),
      () => proxy.close(),
    );
    await addCredentials(server.services.store.db, "virustotal", { api_key: "k" });
    const worker = spawnIntelWorker({ ...env, DATABASE_URL: proxied.toString(), DATABASE_WAIT_MS: "30000" });
    const exited = new Promise((r) => worker.once("exit", r));
    cleanups.push(async () => {
      if (worker.exitCode === null) {
        worker.kill("SIGKILL");
        await exited;
      }
    });

    const subjects = fileSubjects(10, "pg-outage");
    for (const s of subjects) {
      const res = await server.api("/api/request/", { method: "POST", body: JSON.stringify(md5Request(s)) });
      assert.equal(res.status, 201);
    }
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(worker.exitCode, null, "the worker waits for the database instead of exiting");
    await proxy.open();
    while (vt.calls.size < 3) await new Promise((r) => setTimeout(r, 20));
    await proxy.outage(1000); // requests in flight lose their connections

    for (const s of subjects) {
      const res = await pollUntilDone(server, md5Request(s), 60_000);
      assert.equal(res.status, 200, s);
      const doc = await json(res);
      assert.equal(doc.sources.virustotal.status, "ok", "the vendor's answer is not blamed for the database");
      assert.ok(doc.root_entity.attributes.vt_score);
    }
    assert.equal(worker.exitCode, null, "the worker survived the outage");
    const store = server.services.store.db;
    assert.equal((await store.selectFrom("requests").selectAll().execute()).length, subjects.length);
    assert.equal((await store.selectFrom("jobs").selectAll().execute()).length, 0, "no job left");
    assert.equal(await duplicateEntities(store), 0);
  });
});

describe("job recovery", () => {
  it("recognises a worker id of this host whose process is gone", async () => {
    const dead = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    const pid = dead.pid ?? 0;
    dead.kill("SIGKILL");
    await new Promise((r) => dead.once("exit", r));
    const here = newWorkerId();
    const place = here.split(":").slice(0, -2).join(":");
    assert.equal(deadWorker(newWorkerId(place, pid)), true, "a killed process of this host");
    assert.equal(deadWorker(newWorkerId(place, process.ppid)), false, "a running process");
    assert.equal(deadWorker(here), false, "this process");
    assert.equal(deadWorker(newWorkerId("elsewhere/4026531836", pid)), false, "another host");
    assert.equal(deadWorker(newWorkerId(`${place.split("/")[0]}/-`, pid)), false, "no namespace id");
    assert.ok(here.length <= 64, "fits the jobs.worker column");
  });

  it("retries a job whose handler failed within seconds, not after its lease", async () => {
    const db = await freshDatabase("sqlite");
    const store = await openStore(db.url);
    cleanups.push(() => db.drop());
    const queue = createJobQueue(store.db, { leaseMs: 600_000, concurrency: 1, pollMs: 20 });
    let attempts = 0;
    const done = new Promise<void>((resolve) => {
      queue.start(async () => {
        attempts++;
        if (attempts === 1) throw new Error("Connection terminated unexpectedly");
        resolve();
      });
    });
    await queue.enqueue("request-1");
    await done;
    await queue.stop();
    assert.equal(attempts, 2);
    await store.close();
  });

  it("takes back a job its own worker claimed without knowing (the claim's answer was lost)", async () => {
    const db = await freshDatabase("sqlite");
    const store = await openStore(db.url);
    cleanups.push(() => db.drop());
    const queue = createJobQueue(store.db, { leaseMs: 600_000, concurrency: 1, pollMs: 20 });
    queue.start(async () => {});
    const [me] = await queue.workers();
    await queue.stop();
    await store.db
      .insertInto("jobs")
      .values({
        id: "lost-claim",
        request_id: "request-lost",
        status: "running",
        attempts: 1,
        lease_until: new Date(Date.now() + 600_000).toISOString(),
        worker: me ?? null,
        created_at: new Date().toISOString(),
      })
      .execute();
    const ran = new Promise<string>((resolve) => queue.start(async (id) => resolve(id)));
    assert.equal(await ran, "request-lost", "run now, not in ten minutes");
    await queue.stop();
    await store.close();
  });

  it("tells a database that went away from a faulty query", () => {
    for (const err of [
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      new Error("Connection terminated unexpectedly"),
      Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }),
    ])
      assert.equal(isDatabaseUnavailable(err), true, err.message);
    for (const err of [
      Object.assign(new Error('duplicate key value violates unique constraint "x"'), { code: "23505" }),
      Object.assign(new Error("syntax error"), { code: "42601" }),
      new TypeError("x is undefined"),
      "a string",
      null,
    ])
      assert.equal(isDatabaseUnavailable(err), false, String(err));
  });
});
