/**
 * A fresh install with no key and no network, end to end on a real intel service: the connectors
 * that need no key answer from data on this machine (8.8.8.8 is AS15169 in the US), a RED subject
 * included, and the panel's Status page names that data, its licence and its age.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createUser } from "../../src/intel/store/accounts.ts";
import {
  freshDatabase,
  pollUntilDone,
  startIntelServer,
  type TestIntelServer,
} from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";

const ADMIN = { username: "keyless-admin", password: "a long enough password" };

/** The panel's page `path`, fetched after logging in through the login form (its CSRF cookie and field). */
async function panelPage(server: TestIntelServer, path: string): Promise<string> {
  const panel = `${server.url}/${server.services.adminPath}`;
  const form = await fetch(`${panel}/login`);
  const cookie = (form.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? "";
  const login = await fetch(`${panel}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...ADMIN, csrf }).toString(),
  });
  assert.equal(login.status, 303);
  const session = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return (await fetch(`${panel}${path}`, { headers: { cookie: session } })).text();
}

describe("a fresh install with no key and no network", () => {
  let server: TestIntelServer;
  let drop: () => Promise<void>;
  before(async () => {
    const db = await freshDatabase("sqlite");
    drop = db.drop;
    server = await startIntelServer({ databaseUrl: db.url, env: { INTEL_CONNECTORS: "all" } });
    await createUser(server.services.store.db, ADMIN.username, ADMIN.password, true);
  });
  after(async () => {
    await server?.close();
    await drop?.();
  });

  it("answers 8.8.8.8 with AS15169, its organisation and its country, for a RED subject too", async () => {
    const done = await pollUntilDone(
      server,
      { super_type: "OBSERVABLE", type: "IPV4", value: "8.8.8.8", tlp: "RED", pap: "RED" },
      60_000,
    );
    assert.equal(done.status, 200);
    const doc = await json(done);
    assert.equal(doc.sources.iplocation.status, "ok");
    const attributes = doc.root_entity.attributes;
    assert.equal(attributes.asn, "AS15169");
    assert.equal(attributes.country, "US");
    assert.match(attributes.as_owner, /Google/);
    const asn = doc.entities.find((e: { type: { short_name: string } }) => e.type.short_name === "ASN");
    assert.equal(asn?.name, "AS15169");
  });

  it("names the local data on the Status page, with its licence and age", async () => {
    const page = await panelPage(server, "/status");
    assert.match(page, /Local data/);
    assert.match(page, /@ip-location-db\/asn/);
    assert.match(page, /CC BY 4\.0: RouteViews.*DB-IP/);
    assert.match(page, /\d+ days? old/);
  });
});
