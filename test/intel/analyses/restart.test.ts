/**
 * An analysis survives the death of the intel process analysing it, on SQLite and PostgreSQL, with
 * real OS processes: intel A accepts an upload and sends it to a files service that never answers;
 * A is SIGKILLed mid-analysis; intel B, started on the same database and DATA_DIR with a real
 * files service, takes the analysis over once A's lease has run out and finishes it. A server
 * closed mid-analysis (a graceful restart) leaves it pending the same way, and closes at once.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { describeOnEachDatabase } from "../../helpers/databases.ts";
import { startIntelProcessWithKey } from "../../helpers/intel-process.ts";
import { freshDatabase, startIntelServer } from "../../helpers/intel-server.ts";
import { json } from "../../helpers/json.ts";
import { serveOnLoopback } from "../../helpers/loopback.ts";
import { type RealProcess, startFilesProcess, startIntelProcess } from "../../helpers/real-process.ts";

/** A files service that answers its health check and takes uploads, and never answers them. */
async function startSilentFiles() {
  let uploads = 0;
  const server = http.createServer((req, res) => {
    if (req.method === "GET") return void res.end('{"status":"ok"}');
    req.resume();
    req.on("end", () => {
      uploads++;
    });
  });
  return { ...(await serveOnLoopback(server)), uploads: () => uploads };
}

const until = async (what: string, done: () => Promise<boolean> | boolean) => {
  for (const deadline = Date.now() + 120_000; !(await done()); ) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe("files analyses: the analysing process dies", () => {
  let files: RealProcess;
  let silent: Awaited<ReturnType<typeof startSilentFiles>>;
  before(async () => {
    [files, silent] = await Promise.all([startFilesProcess(), startSilentFiles()]);
  });
  after(async () => {
    await files?.close();
    await silent?.close();
  });

  it("leaves an analysis pending when its server closes mid-analysis; the next server finishes it", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "loupe-analyses-close-"));
    const db = await freshDatabase("sqlite");
    const env = { INTEL_CONNECTORS: "", DATA_DIR: dataDir, INTEL_ANALYSIS_LEASE_SECONDS: "1" };
    const a = await startIntelServer({ databaseUrl: db.url, env: { ...env, FILES_URL: silent.url } });
    try {
      const before = silent.uploads();
      const form = new FormData();
      form.append("file", new Blob(["closing"]), "closing.txt");
      const res = await fetch(`${a.url}/api/analyses/`, {
        method: "POST",
        headers: { authorization: `Token ${a.key}` },
        body: form,
      });
      const created = await json(res);
      assert.equal(res.status, 202);
      await until("A sends the file", () => silent.uploads() > before);
      // Closing does not wait for the files service's answer (which never comes).
      await a.close();
      const b = await startIntelServer({ databaseUrl: db.url, env: { ...env, FILES_URL: files.url } });
      try {
        const read = async () => json(await b.api(`/api/analyses/${created.id}/`));
        await until("B finishes it", async () => (await read()).status !== "pending");
        assert.equal((await read()).status, "done");
      } finally {
        await b.close();
      }
    } finally {
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  describeOnEachDatabase(
    (kind) => `on ${kind}`,
    (db) => {
      const { kind } = db;
      it(`hands a pending analysis to the next process, which finishes it (${kind})`, async () => {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), "loupe-analyses-restart-"));
        const env = {
          DATABASE_URL: kind === "sqlite" ? `sqlite:${path.join(dataDir, "intel.db")}` : db.url,
          DATA_DIR: dataDir,
          INTEL_CONNECTORS: "",
          INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0",
          INTEL_ANALYSIS_LEASE_SECONDS: "2",
        };
        const a = await startIntelProcessWithKey({ ...env, FILES_URL: silent.url });
        let b: RealProcess | undefined;
        try {
          const before = silent.uploads();
          const form = new FormData();
          form.append("file", new Blob([`survive ${kind}`]), "survivor.txt");
          const res = await fetch(`${a.url}/api/analyses/`, {
            method: "POST",
            headers: { authorization: `Token ${a.key}` },
            body: form,
          });
          const created = await json(res);
          assert.equal(res.status, 202, JSON.stringify(created));
          await until("A sends the file", () => silent.uploads() > before);
          const exited = new Promise((r) => a.child.once("exit", r));
          a.child.kill("SIGKILL");
          await exited;
          b = await startIntelProcess({ ...env, FILES_URL: files.url });
          const read = async () =>
            json(
              await fetch(`${b?.url}/api/analyses/${created.id}/`, {
                headers: { authorization: `Token ${a.key}` },
              }),
            );
          await until("B finishes it", async () => (await read()).status !== "pending");
          const done = await read();
          assert.equal(done.status, "done", JSON.stringify(done.error));
          assert.equal(done.result.processors.extractor.success, true);
        } finally {
          if (a.child.exitCode === null && a.child.signalCode === null) await a.close();
          await b?.close();
          await rm(a.dir, { recursive: true, force: true });
          await rm(dataDir, { recursive: true, force: true });
        }
      });
    },
  );
});
