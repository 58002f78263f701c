/** The admin panel's queries on SQLite and PostgreSQL: users and keys, sessions, entity search, entity pages, requests. */
import assert from "node:assert/strict";
import { beforeEach, it } from "node:test";
import {
  checkPassword,
  createToken,
  createUser,
  listTokens,
  listUsers,
  revokeToken,
  setPassword,
  setUserActive,
} from "../../../src/intel/store/accounts.ts";
import { entityDetail, recentRequests, searchEntities } from "../../../src/intel/store/browse.ts";
import type { Store } from "../../../src/intel/store/db.ts";
import { findEntity, saveFragment } from "../../../src/intel/store/graph.ts";
import {
  closeSession,
  closeUserSessions,
  openSession,
  readSession,
} from "../../../src/intel/store/sessions.ts";
import { describeOnEachDatabase } from "../../helpers/databases.ts";

const ip = (name: string) => ({ superType: "OBSERVABLE", type: "IPV4", name });
const domain = (name: string) => ({ superType: "OBSERVABLE", type: "DOMAIN", name });

describeOnEachDatabase("admin panel queries", (db) => {
  let store: Store;
  beforeEach(async () => {
    store = await db.store();
  });

  it("lists users with their active keys; deactivation and password resets take effect", async () => {
    const alice = await createUser(store.db, "alice", "alice-password", true);
    const bob = await createUser(store.db, "bob", "bob-password", false);
    await createToken(store.db, alice.id);
    const second = await createToken(store.db, alice.id);
    const [tokenId] = (await listTokens(store.db, alice.id))
      .filter((t) => t.prefix === second.prefix)
      .map((t) => t.id);
    assert.equal(await revokeToken(store.db, bob.id, tokenId!), false, "not bob's key");
    assert.equal(await revokeToken(store.db, alice.id, tokenId!), true);
    const users = await listUsers(store.db);
    assert.deepEqual(
      users.map((u) => [u.username, u.is_admin, u.active_tokens]),
      [
        ["alice", 1, 1],
        ["bob", 0, 0],
      ],
    );
    assert.equal((await checkPassword(store.db, "alice", "alice-password"))?.id, alice.id);
    assert.equal(await checkPassword(store.db, "alice", "wrong"), undefined);
    assert.equal(await checkPassword(store.db, "nobody", "alice-password"), undefined);
    await setPassword(store.db, bob.id, "new-bob-password");
    assert.equal((await checkPassword(store.db, "bob", "new-bob-password"))?.id, bob.id);
    await setUserActive(store.db, bob.id, false);
    assert.equal(await checkPassword(store.db, "bob", "new-bob-password"), undefined);
  });

  it("keeps sessions server-side: expiry, logout, demotion and per-user closing end them", async () => {
    const admin = await createUser(store.db, "carol", "carol-password", true);
    const s = await openSession(store.db, admin.id, 60_000);
    assert.equal((await readSession(store.db, s.id))?.user.username, "carol");
    assert.equal((await readSession(store.db, s.id))?.csrf, s.csrf);
    assert.equal(await readSession(store.db, `${s.id}x`), undefined);
    await closeSession(store.db, s.id);
    assert.equal(await readSession(store.db, s.id), undefined);
    const expired = await openSession(store.db, admin.id, -1);
    assert.equal(await readSession(store.db, expired.id), undefined);
    const a = await openSession(store.db, admin.id, 60_000);
    await closeUserSessions(store.db, admin.id);
    assert.equal(await readSession(store.db, a.id), undefined);
    const b = await openSession(store.db, admin.id, 60_000);
    await setUserActive(store.db, admin.id, false);
    assert.equal(await readSession(store.db, b.id), undefined);
  });

  it("searches entities by part of the name, case-insensitively, with % and _ taken literally", async () => {
    await saveFragment(
      store.db,
      domain("Evil-Example.org"),
      {
        entities: [domain("Evil-Example.org"), domain("100%_sure.example"), ip("192.0.2.7")],
        relations: [{ name: "resolves", from: domain("Evil-Example.org"), to: ip("192.0.2.7") }],
        events: [
          {
            type: "HIT",
            name: "seen by a sensor",
            firstSeen: "2026-11-01T00:00:00Z",
            lastSeen: "2026-11-02T00:00:00Z",
            involved: domain("Evil-Example.org"),
          },
        ],
      },
      "virustotal",
    );
    const names = async (text: string, type?: string) =>
      (await searchEntities(store.db, { text, type, limit: 50 })).map((e) => e.name).sort();
    assert.deepEqual(await names("evil-EXAMPLE"), ["Evil-Example.org"]);
    assert.deepEqual(await names("%_"), ["100%_sure.example"]);
    assert.deepEqual(await names("_"), ["100%_sure.example"]);
    assert.deepEqual(await names("", "IPV4"), ["192.0.2.7"]);
    assert.deepEqual(await names("example", "IPV4"), []);

    const evil = await findEntity(store.db, domain("Evil-Example.org"));
    const detail = await entityDetail(store.db, evil!.id);
    assert.deepEqual(
      detail?.links.map((l) => [l.direction, l.relation, l.entity.name]),
      [["out", "resolves", "192.0.2.7"]],
    );
    assert.equal(detail?.events[0]?.name, "seen by a sensor");
    const target = await findEntity(store.db, ip("192.0.2.7"));
    assert.deepEqual(
      (await entityDetail(store.db, target!.id))?.links.map((l) => [l.direction, l.entity.name]),
      [["in", "Evil-Example.org"]],
    );
    assert.equal(await entityDetail(store.db, "00000000-0000-0000-0000-000000000000"), undefined);
  });

  it("lists recent requests, newest first, filtered by status", async () => {
    for (const [i, status] of ["SUCCEEDED", "FAILED", "SUCCEEDED"].entries()) {
      await store.db
        .insertInto("requests")
        .values({
          id: `00000000-0000-0000-0000-00000000000${i}`,
          super_type: "OBSERVABLE",
          type: "DOMAIN",
          value: `d${i}.example`,
          subject_key: `OBSERVABLE/DOMAIN/d${i}.example`,
          force: 0,
          status,
          vendors: "{}",
          error: null,
          created_at: `2026-11-23T10:00:0${i}.000Z`,
          started_at: null,
          finished_at: null,
        })
        .execute();
    }
    assert.deepEqual(
      (await recentRequests(store.db, { limit: 10 })).map((r) => r.value),
      ["d2.example", "d1.example", "d0.example"],
    );
    assert.deepEqual(
      (await recentRequests(store.db, { status: "FAILED", limit: 10 })).map((r) => r.value),
      ["d1.example"],
    );
    assert.equal((await recentRequests(store.db, { limit: 2 })).length, 2);
  });
});
