/**
 * Upgrades: a database an older release made — its schema built by running the migrations only up
 * to that release's last one, its rows written the way that release wrote them — is opened by the
 * current code. Every migration this code knows then runs, the data migrations fill what they
 * derive from old rows, and a lookup the old release stored is answered from storage with the old
 * release's API key. The old releases are fixed names: migrations added later run in the same
 * "then to latest" step, so the test stays valid as the list grows.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { it } from "node:test";
import { Migrator } from "kysely/migration";
import { hashPassword, tokenHash } from "../../src/intel/store/accounts.ts";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import { pendingMigrations, provider } from "../../src/intel/store/migrations.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { startIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

/** The last migration of each older release: the first one, and the one before retention and the audit log. */
const OLDER_RELEASES = ["2026-11-22-initial", "2026-11-23-admin-sessions"];

const DOMAIN = "old-release.example";
const KEY = "0123456789abcdef0123456789abcdef01234567";
const ASKED_AT = "2026-11-20T10:00:00.000Z";
const FINISHED_AT = "2026-11-20T10:00:02.000Z";

async function buildOlderDatabase(store: Store, release: string): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: provider(store.dialect) });
  const { error } = await migrator.migrateTo(release);
  if (error) throw error;
  await writeOldRows(store);
}

/** What a finished lookup, an account and its key looked like in the tables of the first release. */
async function writeOldRows({ db }: Store): Promise<void> {
  const root = randomUUID();
  const ip = randomUUID();
  const requestId = randomUUID();
  const stamps = { created_at: ASKED_AT, updated_at: FINISHED_AT };
  const blank = { description: "", source_url: "", tlp: "WHITE", pap: "WHITE" };
  await db
    .insertInto("entities")
    .values([
      {
        id: root,
        super_type: "OBSERVABLE",
        type: "DOMAIN",
        name: DOMAIN,
        attributes: "{}",
        ...blank,
        ...stamps,
      },
      {
        id: ip,
        super_type: "OBSERVABLE",
        type: "IPV4",
        name: "192.0.2.7",
        attributes: JSON.stringify({ source_vendor: "virustotal" }),
        ...blank,
        ...stamps,
      },
    ])
    .execute();
  await db
    .insertInto("relations")
    .values({
      id: randomUUID(),
      name: "resolves to",
      description: "",
      obj_from: root,
      obj_to: ip,
      attributes: "{}",
      created_at: ASKED_AT,
    })
    .execute();
  await db
    .insertInto("events")
    .values({
      id: randomUUID(),
      type: "HIT",
      name: "Seen by the old release",
      first_seen: ASKED_AT,
      last_seen: FINISHED_AT,
      count: 3,
      description: "",
      attributes: "{}",
      involved_entity: root,
      vendor: "virustotal",
      ...stamps,
    })
    .execute();
  const vendors = { virustotal: { status: "ok", error: null, fetched_at: FINISHED_AT } };
  await db
    .insertInto("requests")
    .values({
      id: requestId,
      super_type: "OBSERVABLE",
      type: "DOMAIN",
      value: DOMAIN,
      subject_key: `OBSERVABLE/DOMAIN/${DOMAIN}`,
      force: 0,
      status: "SUCCEEDED",
      vendors: JSON.stringify(vendors),
      error: null,
      created_at: ASKED_AT,
      started_at: ASKED_AT,
      finished_at: FINISHED_AT,
    })
    .execute();
  await db
    .insertInto("lookups")
    .values({
      subject_key: `OBSERVABLE/DOMAIN/${DOMAIN}`,
      root_entity: root,
      request_id: requestId,
      status: "SUCCEEDED",
      finished_at: FINISHED_AT,
    })
    .execute();
  await db
    .insertInto("jobs")
    .values({
      id: randomUUID(),
      request_id: requestId,
      status: "DONE",
      attempts: 1,
      lease_until: null,
      worker: "old-worker",
      created_at: ASKED_AT,
    })
    .execute();
  const user = await db
    .insertInto("users")
    .values({
      username: "analyst",
      password_hash: await hashPassword("an-old-password"),
      is_admin: 1,
      is_active: 1,
      created_at: ASKED_AT,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await db
    .insertInto("tokens")
    .values({
      user_id: user.id,
      prefix: KEY.slice(0, 8),
      hash: tokenHash(KEY),
      created_at: ASKED_AT,
      last_used_at: null,
      revoked: 0,
    })
    .execute();
}

/** Opens the old database with today's code (which migrates it) and checks schema and data. */
async function assertUpgraded(url: string): Promise<void> {
  const server = await startIntelServer({ databaseUrl: url, connectors: [], worker: false });
  try {
    const { db, dialect } = server.services.store;
    assert.deepEqual(await pendingMigrations(db, dialect), []);
    // The retention migration derives when each subject was last asked about from old requests.
    const asked = await db.selectFrom("subject_asks").selectAll().execute();
    assert.deepEqual(asked, [{ subject_key: `OBSERVABLE/DOMAIN/${DOMAIN}`, asked_at: ASKED_AT }]);
    assert.deepEqual(await db.selectFrom("audit_log").selectAll().execute(), []);

    const res = await fetch(`${server.url}/api/request/`, {
      method: "POST",
      headers: { authorization: `Token ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "DOMAIN", value: DOMAIN }),
    });
    assert.equal(res.status, 200, "the stored lookup answers at once, no new request");
    const doc = await json(res);
    assert.equal(doc.root_entity.name, DOMAIN);
    assert.deepEqual(
      doc.entities.map((e: { name: string }) => e.name),
      ["192.0.2.7"],
    );
    assert.deepEqual(
      doc.relations.map((r: { name: string }) => r.name),
      ["resolves to"],
    );
    assert.deepEqual(
      doc.events.map((e: { name: string; count: number }) => [e.name, e.count]),
      [["Seen by the old release", 3]],
    );
    // Its vendor's part as the old release stored it, with this release's age and origin beside it.
    const { age_seconds: age, ...part } = doc.sources.virustotal;
    assert.deepEqual(part, { status: "ok", error: null, fetched_at: FINISHED_AT, from_cache: true });
    assert.ok(age >= (Date.now() - Date.parse(FINISHED_AT)) / 1000 - 60, `age_seconds ${age}`);
    assert.equal(
      (
        await db.selectFrom("requests").select(db.fn.countAll().as("n")).executeTakeFirstOrThrow()
      ).n.toString(),
      "1",
      "answered from storage: no request was created",
    );
  } finally {
    await server.close();
  }
}

describeOnEachDatabase(
  (kind) => `upgrading a database an older release made (${kind})`,
  (db) => {
    for (const release of OLDER_RELEASES) {
      it(`from the release ending at ${release}: migrated to latest, its lookup answered from storage`, async () => {
        const url = await db.fresh();
        const old = await openStore(url, { migrate: false });
        try {
          await buildOlderDatabase(old, release);
          assert.ok(
            (await pendingMigrations(old.db, old.dialect)).length > 0,
            "the old schema lacks later migrations",
          );
        } finally {
          await old.close();
        }
        await assertUpgraded(url);
      });
    }
  },
);
