/** Every intel API route refuses a missing or wrong key; inactive users are refused too. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../helpers/intel-server.ts";

describe("intel authentication", () => {
  let server: TestIntelServer;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  before(async () => {
    db = await freshDatabase("sqlite");
    server = await startIntelServer({ databaseUrl: db.url, worker: false });
  });
  after(async () => {
    await server.close();
    await db.drop();
  });

  it("answers 401 without a key on every /api/ route the server has", async () => {
    const apiRoutes = server.app.routeList.filter((r) => r.url.startsWith("/api/") && r.method !== "OPTIONS");
    assert.ok(apiRoutes.length >= 8, `found ${apiRoutes.length} routes`);
    for (const { method, url } of apiRoutes) {
      const concrete = url.replace(/:(\w+)/g, "x").replace(/\*$/, "index.html");
      for (const headers of [
        {},
        { authorization: "Token nope" },
        { authorization: `Bearer ${server.key}` },
      ]) {
        const res = await fetch(server.url + concrete, { method, headers });
        assert.equal(res.status, 401, `${method} ${url} with ${JSON.stringify(headers)}`);
      }
    }
  });

  it("keeps every admin panel route but login and assets behind a session, whatever the API key", async () => {
    const prefix = `/${server.services.adminPath}`;
    const publicRoutes = new Set([`${prefix}/`, `${prefix}`, `${prefix}/login`, `${prefix}/static/:name`]);
    const routes = server.app.routeList.filter(
      (r) =>
        r.url.startsWith(prefix) && r.method !== "OPTIONS" && r.method !== "HEAD" && !publicRoutes.has(r.url),
    );
    assert.ok(routes.length >= 15, `found ${routes.length} routes`);
    for (const { method, url } of routes) {
      const concrete = url.replace(":vendor", "virustotal").replace(/:(\w+)/g, "1");
      for (const headers of [
        {},
        { authorization: `Token ${server.key}` },
        { cookie: "loupe_session=forged" },
      ]) {
        const res = await fetch(server.url + concrete, { method, headers, redirect: "manual" });
        const where = `${method} ${url} with ${JSON.stringify(headers)}`;
        if (res.status === 401)
          assert.equal(((await res.json()) as { code: string }).code, "not_logged_in", where);
        else {
          assert.equal(res.status, 303, where);
          assert.match(res.headers.get("location") ?? "", new RegExp(`^${prefix}/login`), where);
        }
      }
    }
  });

  it("refuses the key of a deactivated user", async () => {
    assert.equal((await server.api("/api/types/")).status, 200);
    await server.services.store.db.updateTable("users").set({ is_active: 0 }).execute();
    try {
      assert.equal((await server.api("/api/types/")).status, 401);
    } finally {
      await server.services.store.db.updateTable("users").set({ is_active: 1 }).execute();
    }
  });

  it("refuses a revoked key", async () => {
    await server.services.store.db.updateTable("tokens").set({ revoked: 1 }).execute();
    assert.equal((await server.api("/api/types/")).status, 401);
  });
});
