/**
 * The backups docs/deployment.md prescribes, made while the database is open and written to,
 * then restored: `sqlite3 .backup` (SQLite's online backup) and `pg_dump`/`pg_restore`. The
 * restored copy holds what was written and `./loupe doctor` finds it reachable and migrated.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import { freshDatabase, postgresSkipReason } from "../helpers/intel-server.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { checkOf, doctorReport } from "./run-doctor.ts";

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "loupe-backup-"));
});
after(() => rm(tmp, { recursive: true, force: true }));

async function write(store: Store, key: string): Promise<void> {
  await store.db.insertInto("settings").values({ key, value: "kept" }).execute();
}

async function holds(url: string, key: string): Promise<boolean> {
  const store = await openStore(url, { migrate: false });
  try {
    return (
      (await store.db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst())
        ?.value === "kept"
    );
  } finally {
    await store.close();
  }
}

async function assertHealthy(url: string): Promise<void> {
  const { report } = await doctorReport({ DATABASE_URL: url, DATA_DIR: tmp, INTEL_CONNECTORS: "hashlookup" });
  assert.equal(checkOf(report, "database").status, "ok", checkOf(report, "database").detail);
  assert.equal(checkOf(report, "queue").status, "ok");
}

describe("backups", () => {
  it("SQLite: an online .backup of an open database restores whole", {
    skip: skipUnlessCommands("sqlite3"),
  }, async () => {
    const live = path.join(tmp, "intel.db");
    const store = await openStore(`sqlite:${live}`);
    try {
      await write(store, "before-backup");
      const backup = path.join(tmp, "backup.db");
      execFileSync("sqlite3", [live, `.backup ${backup}`]);
      await write(store, "after-backup");
      const restored = path.join(tmp, "restored.db");
      copyFileSync(backup, restored);
      assert.equal(await holds(`sqlite:${restored}`, "before-backup"), true);
      assert.equal(await holds(`sqlite:${restored}`, "after-backup"), false);
      await assertHealthy(`sqlite:${restored}`);
    } finally {
      await store.close();
    }
  });

  it("PostgreSQL: pg_dump of a live database, pg_restore into an empty one", async (t) => {
    const skip = (await postgresSkipReason()) || skipUnlessCommands("pg_dump", "pg_restore");
    if (skip) return t.skip(skip);
    const source = await freshDatabase("postgres");
    const target = await freshDatabase("postgres");
    const store = await openStore(source.url);
    try {
      await write(store, "before-backup");
      const dump = path.join(tmp, "loupe.dump");
      execFileSync("pg_dump", ["--format=custom", `--file=${dump}`, source.url]);
      execFileSync("pg_restore", ["--no-owner", `--dbname=${target.url}`, dump]);
      assert.equal(await holds(target.url, "before-backup"), true);
      await assertHealthy(target.url);
    } finally {
      await store.close();
      await source.drop();
      await target.drop();
    }
  });
});
