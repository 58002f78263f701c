/**
 * What happens around an analysis, on SQLite and PostgreSQL with a real files process: no files
 * service (none configured, or none answering) is a 503 saying how to set FILES_URL; an analysis
 * left pending by a process that stopped is run again by the next one when its file is there, and
 * failed (`interrupted`) when it is not — none stays pending; a kept file stays under DATA_DIR
 * until its age is up; uploads and enrichments are in the audit log.
 */
import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { it } from "node:test";
import { auditPage } from "../../../src/intel/services/audit.ts";
import { createUser } from "../../../src/intel/store/accounts.ts";
import { getAnalysis, insertAnalysis } from "../../../src/intel/store/analyses.ts";
import type { AnalysesTable } from "../../../src/intel/store/analysis-schema.ts";
import type { TestIntelServer } from "../../helpers/intel-server.ts";
import { type Json, json } from "../../helpers/json.ts";
import { startFilesProcess } from "../../helpers/real-process.ts";
import { analysisRow, describeAnalyses } from "./fixtures.ts";

function form(text: string, name: string): FormData {
  const body = new FormData();
  body.append("file", new Blob([text]), name);
  return body;
}

async function finished(server: TestIntelServer, id: string): Promise<Json> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const body = await json(await server.api(`/api/analyses/${id}/`));
    if (body.status !== "pending" || Date.now() > deadline) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A pending analysis whose runner's lease ran out: what a process that stopped mid-analysis leaves. */
const pendingRow = (id: string, userId: number, filePath: string, over: Partial<AnalysesTable> = {}) =>
  analysisRow(id, userId, {
    lease_until: new Date(Date.now() - 1000).toISOString(),
    file_path: filePath,
    ...over,
  });

const upload = (server: TestIntelServer, text: string, name: string) =>
  fetch(`${server.url}/api/analyses/`, {
    method: "POST",
    headers: { authorization: `Token ${server.key}` },
    body: form(text, name),
  });

describeAnalyses(
  "files analyses: lifecycle",
  { folder: "life" },
  () => startFilesProcess(),
  ({ kind, folder, files }) => {
    const start = (env: Record<string, string>) => folder.startServer({ FILES_URL: files().url, ...env });

    it("answers 503 with how to set FILES_URL when no files service is configured or answering", async () => {
      const none = await start({ FILES_URL: "none" });
      const res = await upload(none, "x", "x.txt");
      const body = await json(res);
      assert.deepEqual([res.status, body.code], [503, "files_service_not_configured"]);
      assert.match(body.detail, /FILES_URL/);
      const away = await start({ FILES_URL: "http://127.0.0.1:9" });
      const res2 = await upload(away, "x", "x.txt");
      const body2 = await json(res2);
      assert.deepEqual([res2.status, body2.code], [503, "files_service_unavailable"]);
      assert.match(body2.detail, /http:\/\/127\.0\.0\.1:9.*FILES_URL/s);
    });

    it("runs again an analysis left pending by a stopped process when its file is here, and fails it when not", async () => {
      // What a process that died mid-analysis leaves: pending rows whose lease ran out.
      const dir = path.join(folder.dataDir, "analyses");
      await mkdir(dir, { recursive: true });
      const next = await start({});
      const user = await createUser(next.services.store.db, `runner${kind}`, "runner-password", false);
      await writeFile(path.join(dir, `here-${kind}`), "hello");
      const row = (id: string) => pendingRow(id, user.id, path.join(dir, id));
      await insertAnalysis(next.services.store.db, row(`here-${kind}`));
      await insertAnalysis(next.services.store.db, row(`gone-${kind}`));
      // A process started after them sweeps at start; this one sweeps every minute: start another.
      const third = await start({});
      const here = await finished(third, `here-${kind}`);
      const gone = await finished(third, `gone-${kind}`);
      assert.equal(here.status, "done", JSON.stringify(here.error));
      assert.equal(here.result.processors.extractor.success, true);
      assert.deepEqual([gone.status, gone.error?.code], ["failed", "interrupted"]);
      assert.deepEqual(
        (await readdir(dir)).filter((f) => f.includes(kind)),
        [],
        "nothing left on disk",
      );
    });

    it("keeps the file under DATA_DIR when told to, and writes uploads to the audit log", async () => {
      const keeping = await start({ INTEL_ANALYSIS_KEEP_FILES: "1", INTEL_ANALYSIS_KEEP_MAX_BYTES: "100" });
      const small = await json(await upload(keeping, `keep me ${kind}`, "small.txt"));
      const large = await json(await upload(keeping, `${kind} ${"x".repeat(2_000_000)}`, "large.txt"));
      assert.equal((await finished(keeping, small.id)).file_kept, true);
      const largeDone = await finished(keeping, large.id);
      assert.equal(largeDone.status, "done", "past the JSON body limit: multipart has its own");
      assert.equal(largeDone.file_kept, false, "over the size limit");
      const kept = await readdir(path.join(folder.dataDir, "analyses"));
      assert.ok(kept.includes(small.id) && !kept.includes(large.id), kept.join(", "));
      const audit = await auditPage(keeping.services, {
        limit: 50,
        offset: 0,
        action: "analysis.",
      });
      assert.ok(
        audit.entries.some(
          (e) => e.action === "analysis.upload" && e.target === small.id && e.detail.includes("TLP:RED"),
        ),
        JSON.stringify(audit.entries),
      );
      // A kept file past INTEL_ANALYSIS_KEEP_DAYS goes at the next sweep (one runs at start).
      const old = path.join(path.join(folder.dataDir, "analyses"), `old-${kind}`);
      await writeFile(old, "old");
      const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
      const user = await createUser(keeping.services.store.db, `keeper${kind}`, "keeper-password", false);
      await insertAnalysis(
        keeping.services.store.db,
        pendingRow(`old-${kind}`, user.id, old, { status: "done", created_at: longAgo, lease_until: null }),
      );
      await start({ INTEL_ANALYSIS_KEEP_FILES: "1" });
      const deadline = Date.now() + 60_000;
      while (
        (await getAnalysis(keeping.services.store.db, `old-${kind}`))?.file_path &&
        Date.now() < deadline
      )
        await new Promise((r) => setTimeout(r, 100));
      assert.equal((await getAnalysis(keeping.services.store.db, `old-${kind}`))?.file_path, null);
      assert.ok(!(await readdir(path.join(folder.dataDir, "analyses"))).includes(`old-${kind}`));
      assert.ok(
        (await readdir(path.join(folder.dataDir, "analyses"))).includes(small.id),
        "a recent one stays",
      );
    });
  },
);
