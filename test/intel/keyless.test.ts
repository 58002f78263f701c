/**
 * A fresh install with no key and no network, end to end on a real intel service: the connectors
 * that need no key answer from data on this machine (8.8.8.8 is AS15169 in the US; a spyware
 * domain from the MVT copies the worker downloaded from a loopback mirror), a RED subject
 * included, and the panel's Status page names that data, its licence and its age.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { iplocation } from "../../src/intel/connectors/iplocation/index.ts";
import { createUser } from "../../src/intel/store/accounts.ts";
import { listCopies } from "../../src/intel/store/feeds.ts";
import { fixture } from "../helpers/connectors.ts";
import {
  DROP_RANGE,
  type FakeFeeds,
  FEODO_C2,
  SPY_DOMAIN,
  startFakeFeeds,
  TOR_EXIT,
} from "../helpers/fake-feeds.ts";
import { RDAP_DOMAIN, startFakeRdap } from "../helpers/fake-rdap.ts";
import { type SimpleFake, startFakeVendor } from "../helpers/fake-vendor.ts";
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
  let feeds: FakeFeeds;
  let registries: SimpleFake;
  let certificates: SimpleFake;
  before(async () => {
    feeds = await startFakeFeeds();
    registries = await startFakeRdap();
    certificates = await startFakeVendor({
      [`/?q=${RDAP_DOMAIN}&output=json&deduplicate=Y`]: {
        body: fixture("crtsh", "certificates").certificates,
      },
    });
    const db = await freshDatabase("sqlite");
    drop = db.drop;
    server = await startIntelServer({
      databaseUrl: db.url,
      // Every connector, no key; the feeds' "network" is a loopback mirror the worker refreshes from.
      env: {
        INTEL_CONNECTORS: "all",
        INTEL_FEEDS_REFRESH_MINUTES: "360",
        ...feeds.env(),
        INTEL_VENDOR_URL_RDAP: registries.url,
        INTEL_VENDOR_URL_CRTSH: certificates.url,
      },
    });
    await createUser(server.services.store.db, ADMIN.username, ADMIN.password, true);
    // The worker's first pass downloads every feed at start.
    for (let i = 0; i < 600; i++) {
      const copies = await listCopies(server.services.store.db);
      if (copies.length > 0 && copies.every((c) => c.fetched_at)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => {
    await server?.close();
    await feeds?.close();
    await registries?.close();
    await certificates?.close();
    await drop?.();
  });

  const ask = async (type: string, value: string) => {
    const done = await pollUntilDone(server, { super_type: "OBSERVABLE", type, value, tlp: "RED" }, 60_000);
    assert.equal(done.status, 200);
    return json(done);
  };

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

  it("names a domain from a spyware bundle as that spyware, with its source and references", async () => {
    const doc = await ask("DOMAIN", SPY_DOMAIN);
    assert.equal(doc.sources.mvt.status, "ok");
    assert.equal(doc.root_entity.attributes.spyware, "ExampleSpy");
    assert.equal(doc.root_entity.attributes.spyware_sources, "Amnesty International, Citizen Lab");
    const names = doc.entities.map(
      (e: { type: { short_name: string }; name: string }) => `${e.type.short_name}:${e.name}`,
    );
    assert.ok(names.includes("SPYWARE:ExampleSpy"), names.join(" "));
    assert.ok(names.includes("REPORT:https://example.org/research/examplespy"), names.join(" "));
  });

  it("answers a listed IP as a Tor exit, a botnet C2 and a DROP range from the local list copies", async () => {
    const tor = await ask("IPV4", TOR_EXIT);
    assert.equal(tor.sources.blocklists.status, "ok");
    assert.equal(tor.root_entity.attributes.tor_exit, "true");
    const c2 = await ask("IPV4", FEODO_C2);
    assert.equal(c2.root_entity.attributes.botnet_c2, "QakBot");
    assert.match(c2.root_entity.attributes.blocklisted, /Feodo Tracker.*SSLBL/);
    const inRange = await ask("IPV4", DROP_RANGE.replace("0/24", "77"));
    assert.equal(inRange.root_entity.attributes.spamhaus_sbl, "SBL000001");
  });

  it("answers a domain with its registration dates, registrar and status (RDAP) and its certificates (crt.sh)", async () => {
    const doc = await pollUntilDone(
      server,
      { super_type: "OBSERVABLE", type: "DOMAIN", value: RDAP_DOMAIN },
      60_000,
    );
    const answer = await json(doc);
    assert.equal(answer.sources.rdap.status, "ok");
    const a = answer.root_entity.attributes;
    assert.deepEqual(
      [a.created, a.expires, a.registrar],
      ["2026-11-24T09:12:00Z", "2027-11-24T09:12:00Z", "Example Registrar, Inc."],
    );
  });

  it("names the local data on the Status page, with its licence and age", async () => {
    const page = await panelPage(server, "/status");
    assert.match(page, /Local data/);
    assert.match(page, /@ip-location-db\/asn/);
    assert.match(page, /CC BY 4\.0: RouteViews.*DB-IP/);
    assert.match(page, /\d+ days? old/);
    assert.match(page, /Local feeds/);
    assert.match(page, /Example Spyware Indicators of Compromise/);
  });
});

describe("a worker starting", () => {
  it("loads each enabled connector's local data at once, not on the first lookup", async () => {
    const warmed: string[] = [];
    const local = { ...iplocation, warm: async () => void warmed.push("iplocation") };
    const db = await freshDatabase("sqlite");
    const server = await startIntelServer({
      databaseUrl: db.url,
      connectors: [local],
      env: { INTEL_CONNECTORS: "all" },
    });
    try {
      assert.deepEqual(warmed, ["iplocation"]);
    } finally {
      await server.close();
      await db.drop();
    }
  });
});
