/**
 * `./loupe up` runs the intel API and its worker as two processes on one SQLite file: a
 * transaction that reads and then writes must wait for the other process's write lock, not fail
 * at once with SQLITE_BUSY (what a deferred BEGIN does when the snapshot it read is stale).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import { ROOT } from "../../src/common/config.ts";
import { openStore } from "../../src/intel/store/db.ts";

/** Another process writing to the file for `ms`, one small autocommit write at a time. */
const WRITER = `
const Database = require(${JSON.stringify(path.join(ROOT, "node_modules/better-sqlite3"))});
const db = new Database(process.argv[1]);
db.pragma("busy_timeout = 5000");
const insert = db.prepare("insert into settings (key, value) values (?, 'x')");
const end = Date.now() + Number(process.argv[2]);
const pause = new Int32Array(new SharedArrayBuffer(4));
console.log("writing");
for (let i = 0; Date.now() < end; i++) { insert.run("other-" + i); Atomics.wait(pause, 0, 0, 1); }
`;

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

it("read-then-write transactions wait for another process's writes instead of failing", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-sqlite-"));
  dirs.push(dir);
  const file = path.join(dir, "intel.db");
  const store = await openStore(`sqlite:${file}`);
  const writer = spawn(process.execPath, ["-e", WRITER, file, "4000"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((r) => writer.once("exit", r));
  await new Promise((r) => writer.stdout.once("data", r));
  const failures: string[] = [];
  let done = 0;
  try {
    while (writer.exitCode === null) {
      try {
        await store.db.transaction().execute(async (tx) => {
          await tx.selectFrom("settings").select("key").limit(1).execute();
          await new Promise((r) => setTimeout(r, 2)); // the other process commits meanwhile
          await tx
            .insertInto("settings")
            .values({ key: `ours-${done}`, value: "y" })
            .execute();
        });
        done++;
        // A breather between transactions, as any real server has: SQLite's busy handler polls
        // with growing sleeps, so a loop that holds the write lock nearly all the time could
        // starve the other process past its busy timeout (a fairness limit of SQLite, not a bug).
        await new Promise((r) => setTimeout(r, 3));
      } catch (err) {
        failures.push((err as { code?: string }).code ?? String(err));
      }
    }
  } finally {
    await store.close();
  }
  assert.equal(await exited, 0, "the other process's writes all succeeded");
  assert.ok(done > 10, `transactions ran: ${done}`);
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} transactions failed`);
});
