/**
 * `./loupe doctor` run as a child process against real parts (a SQLite file and a PostgreSQL
 * database migrated by the intel store, Loupe's own clamd): every check passes once and fails once.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import SqliteDatabase from "better-sqlite3";
import { judgeSignatures, yaraCheck, yaraNativeCheck } from "../../src/cli/doctor/engines.ts";
import { doctorSettings } from "../../src/cli/doctor/settings.ts";
import { nodeCheck } from "../../src/cli/doctor/system.ts";
import { ROOT } from "../../src/common/config.ts";
import { openStore } from "../../src/intel/store/db.ts";
import { checkOf, doctorReport, runDoctor } from "../deploy/run-doctor.ts";
import { startTestClamd } from "../helpers/clamd.ts";
import { freshDatabase, postgresSkipReason } from "../helpers/intel-server.ts";

const report = doctorReport;
const find = checkOf;

let tmp: string;
let healthy: Record<string, string>;
let clamd: Awaited<ReturnType<typeof startTestClamd>>;
let dbUrl: string;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "loupe-doctor-"));
  dbUrl = `sqlite:${path.join(tmp, "intel.db")}`;
  await (await openStore(dbUrl)).close();
  clamd = await startTestClamd();
  healthy = {
    DATA_DIR: path.join(tmp, "data"),
    DATABASE_URL: dbUrl,
    CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
    INTEL_CONNECTORS: "hashlookup",
    DOCTOR_MIN_FREE_MB: "1",
  };
});

after(async () => {
  await clamd?.stop();
  await rm(tmp, { recursive: true, force: true });
});

describe("./loupe doctor", () => {
  it("passes on a healthy local deployment and prints a table with its fixes", async () => {
    const { code, report: r } = await report(healthy);
    assert.equal(code, 0, JSON.stringify(r.checks, null, 2));
    assert.equal(r.ok, true);
    for (const check of [
      "configuration",
      "tls",
      "secrets",
      "node",
      "disk LOUPE_DATA_DIR",
      "database",
      "queue",
    ])
      assert.equal(find(r, check).status, "ok", check);
    assert.equal(find(r, "connectors").status, "ok");
    assert.equal(find(r, "yara").status, "ok");
    // Loupe's own clamd answers, but with only the test signatures: a warning, not an error.
    assert.equal(find(r, "clamd").status, "warn");
    assert.match(find(r, "clamd").detail, /test signatures/);
    const table = await runDoctor(healthy, []);
    assert.equal(table.code, 0);
    assert.match(table.out, /^check\s+status\s+detail/);
    assert.match(table.out, /clamd\s+warn\s+.*→ run freshclam/);
    const prometheus = await runDoctor(healthy, ["--prometheus"]);
    assert.match(prometheus.out, /^loupe_doctor_status\{check="database"\} 0$/m);
    assert.match(prometheus.out, /^loupe_doctor_status\{check="clamd"\} 1$/m);
  });

  it("reports every bad setting by name and exits 1", async () => {
    const { code, report: r } = await report({ ...healthy, MAX_FILE_SIZE: "lots", INTEL_CONNECTORS: "nope" });
    assert.equal(code, 1);
    assert.equal(r.ok, false);
    const c = find(r, "configuration");
    assert.equal(c.status, "error");
    assert.match(c.detail, /MAX_FILE_SIZE/);
    assert.match(c.detail, /nope/);
    assert.match(c.fix ?? "", /configuration\.md/);
  });

  it("refuses plain http on a public BASE_URL and asks for secrets", async () => {
    const plain = await report({ ...healthy, BASE_URL: "http://intel.example.org", HOST: "0.0.0.0" });
    assert.equal(plain.code, 1);
    assert.equal(find(plain.report, "tls").status, "error");
    const s = find(plain.report, "secrets");
    assert.equal(s.status, "warn");
    assert.match(s.detail, /SECRET_KEY/);
    assert.match(s.detail, /METRICS_TOKEN/);
    const tls = await report({
      ...healthy,
      BASE_URL: "https://intel.example.org",
      HOST: "0.0.0.0",
      SECRET_KEY: "k".repeat(64),
      METRICS_TOKEN: "t".repeat(32),
    });
    assert.equal(find(tls.report, "tls").status, "ok");
    assert.equal(find(tls.report, "secrets").status, "ok");
  });

  it("reports a database that cannot be reached, and one not migrated", async () => {
    const down = await report({ ...healthy, DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" });
    assert.equal(down.code, 1);
    const d = find(down.report, "database");
    assert.equal(d.status, "error");
    assert.match(d.detail, /127\.0\.0\.1:1/);
    const missing = await report({ ...healthy, DATABASE_URL: `sqlite:${path.join(tmp, "absent.db")}` });
    assert.match(find(missing.report, "database").detail, /no database at/);

    const empty = path.join(tmp, "empty.db");
    new SqliteDatabase(empty).close();
    const bare = await report({ ...healthy, DATABASE_URL: `sqlite:${empty}` });
    assert.equal(bare.code, 1);
    assert.match(find(bare.report, "database").detail, /migrations not run: 2026-11-22-initial/);
  });

  it("checks a PostgreSQL database the same way", async (t) => {
    const skip = await postgresSkipReason();
    if (skip) return t.skip(skip);
    const db = await freshDatabase("postgres");
    try {
      const bare = await report({ ...healthy, DATABASE_URL: db.url });
      assert.match(find(bare.report, "database").detail, /postgres reachable; \d+ migrations not run/);
      await (await openStore(db.url)).close();
      const migrated = await report({ ...healthy, DATABASE_URL: db.url });
      assert.equal(find(migrated.report, "database").detail, "postgres reachable and migrated");
      assert.equal(find(migrated.report, "queue").status, "ok");
    } finally {
      await db.drop();
    }
  });

  it("reports jobs no worker reclaims, and a deep queue", async () => {
    const file = path.join(tmp, "queue.db");
    const url = `sqlite:${file}`;
    await (await openStore(url)).close();
    const sqlite = new SqliteDatabase(file);
    const insert = sqlite.prepare(
      "insert into jobs (id, request_id, status, attempts, lease_until, worker, created_at) values (?, ?, ?, 0, ?, ?, ?)",
    );
    const now = new Date().toISOString();
    for (let i = 0; i < 3; i++) insert.run(`q${i}`, `r${i}`, "queued", null, null, now);
    const deep = await report({ ...healthy, DATABASE_URL: url, DOCTOR_QUEUE_WARN_DEPTH: "2" });
    assert.equal(find(deep.report, "queue").status, "warn");
    assert.equal(deep.code, 0);
    insert.run("s", "rs", "running", new Date(Date.now() - 3_600_000).toISOString(), "gone:1:abc", now);
    sqlite.close();
    const stuck = await report({ ...healthy, DATABASE_URL: url });
    assert.equal(stuck.code, 1);
    const q = find(stuck.report, "queue");
    assert.equal(q.status, "error");
    assert.match(q.detail, /3 queued, 1 running, 1 past their lease/);
  });

  it("reports connectors that cannot be asked", async () => {
    const { code, report: r } = await report({ ...healthy, INTEL_CONNECTORS: "virustotal" });
    assert.equal(code, 1);
    assert.match(find(r, "connectors").detail, /0 of 1 enabled connectors usable/);
    const some = await report({ ...healthy, INTEL_CONNECTORS: "hashlookup,virustotal" });
    assert.equal(find(some.report, "connectors").status, "warn");
    assert.match(find(some.report, "connectors").detail, /without credentials: virustotal/);
  });

  it("reports a clamd address where nothing listens", async () => {
    const env = { ...healthy, CLAMD_HOST: "127.0.0.1", CLAMD_PORT: "1" };
    delete (env as Record<string, string | undefined>).CLAMD_SOCKET;
    const { code, report: r } = await report(env);
    assert.equal(code, 1);
    const c = find(r, "clamd");
    assert.equal(c.status, "error");
    assert.match(c.detail, /127\.0\.0\.1:1: clamd is not reachable/);
  });

  it("reports disk space below DOCTOR_MIN_FREE_MB", async () => {
    const { code, report: r } = await report({ ...healthy, DOCTOR_MIN_FREE_MB: String(1024 ** 3) });
    assert.equal(code, 1);
    const d = find(r, "disk LOUPE_DATA_DIR");
    assert.equal(d.status, "error");
    assert.match(d.detail, /below LOUPE_DOCTOR_MIN_FREE_MB/);
  });

  it("judges signatures by their date, and Loupe's own as test signatures", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    const fresh = { engine: "ClamAV 1.4.3", database: "27830/Mon Nov 23 09:00:00 2026" };
    assert.equal(judgeSignatures(fresh, 48, now).fresh, true);
    const old = { engine: "ClamAV 1.4.3", database: "27820/Fri Nov 20 09:00:00 2026" };
    const verdict = judgeSignatures(old, 48, now);
    assert.equal(verdict.fresh, false);
    assert.match(verdict.detail, /75 h old/);
  });

  it("reports a YARA engine that does not load (WebAssembly: error; native: warning, error when required), and the Node version", async () => {
    assert.equal((await yaraCheck()).status, "ok");
    const broken = await yaraCheck(new URL(`file://${path.join(tmp, "missing.wasm")}`));
    assert.equal(broken.status, "error");
    const native = yaraNativeCheck({});
    assert.equal(native.status, "ok", native.detail);
    assert.match(native.detail, /yara-x 1\.7\.1/);
    const missing = "@loupe-test/no-such-native-yara";
    assert.equal(yaraNativeCheck({}, missing).status, "warn");
    assert.equal(yaraNativeCheck({ RULES_ENGINE: "native" }, missing).status, "error");
    assert.equal(yaraNativeCheck({ RULES_ENGINE: "wasm" }, missing).status, "ok");
    assert.equal(nodeCheck("24.0.0").status, "ok");
    assert.equal(nodeCheck("22.11.0").status, "error");
  });

  it("documents its settings in docs/configuration.md", () => {
    const doc = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");
    for (const s of Object.values(doctorSettings)) {
      const row = doc.split("\n").find((line) => line.includes(`\`${s.env}\``));
      assert.ok(row, `${s.env} is missing from docs/configuration.md`);
      assert.ok(
        row.includes(String(s.defaultValue)),
        `${s.env}: documented default is not ${s.defaultValue}`,
      );
    }
  });
});
