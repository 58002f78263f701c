/**
 * A PostgreSQL template database with every intel migration run, made once per version of the
 * store's code (its name carries a hash of src/intel/store) and kept: a suite's database is cloned
 * from it (CREATE DATABASE … TEMPLATE) instead of migrated anew, a fraction of the time.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { ROOT } from "../../src/common/config.ts";
import { openStore } from "../../src/intel/store/db.ts";

/** Serialises making the template between test processes (migrate() takes a lock of its own). */
const TEMPLATE_LOCK = 4206943;
let made: Promise<string> | undefined;

/** The template's name, made on first use (by this process or an earlier one). */
export function migratedTemplate(adminUrl: string): Promise<string> {
  made ??= makeTemplate(adminUrl);
  return made;
}

function templateName(): string {
  const dir = path.join(ROOT, "src/intel/store");
  const hash = createHash("sha256");
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(path.join(dir, file)));
  return `loupe_template_${hash.digest("hex").slice(0, 16)}`;
}

async function makeTemplate(adminUrl: string): Promise<string> {
  const name = templateName();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query("select pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    const done = await admin.query("select 1 from pg_database where datname = $1 and datistemplate", [name]);
    if (done.rowCount === 0) {
      await admin.query(`drop database if exists ${name}`); // half made by a run that was killed
      await admin.query(`create database ${name}`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      await (await openStore(url.toString())).close();
      // Marked last (a template is whole); nobody connects to it, so a clone never waits.
      await admin.query(`alter database ${name} with is_template true allow_connections false`);
    }
  } finally {
    await admin.end();
  }
  return name;
}
