/**
 * The admin panel in a real Chromium: hidden path, login and throttling, users, API keys,
 * vendor credentials, an investigation drawn as an SVG graph, hostile vendor strings shown as
 * text, and CSRF rejection. Screenshots of every page go to test-output/screenshots/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createToken, createUser, findUser } from "../../../src/intel/store/accounts.ts";
import { addCredentials } from "../../../src/intel/store/credentials.ts";
import { launchChromium, screenshot } from "../../helpers/browser.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import {
  freshDatabase,
  pollUntilDone,
  startIntelServer,
  type TestIntelServer,
} from "../../helpers/intel-server.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const HOSTILE_MD5 = "0123456789abcdef0123456789abcdef";
// The long word of escaped letters makes Mermaid wrap the label inside entity codes ("&#2" | "39;").
const HOSTILE = `<img src=x onerror=alert(1)> "quoted" 'single' --> ]] #end ${"ünïcødé".repeat(8)}`;
const ADMIN = { username: "root-admin", password: "correct horse battery" };

/** The EICAR file object, with a threat label no HTML page or Mermaid drawing should trust. */
function hostileFile(): unknown {
  const obj = structuredClone(vtFixture("file")) as {
    data: { attributes: Record<string, unknown> };
  };
  obj.data.attributes.md5 = HOSTILE_MD5;
  obj.data.attributes.popular_threat_classification = {
    suggested_threat_label: HOSTILE,
    popular_threat_category: [{ value: "trojan", count: 3 }],
  };
  return obj;
}

describe("admin panel in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let vt: FakeVendor;
  let server: TestIntelServer;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let panel: string;
  const dialogs: Array<{ type: string; message: string }> = [];

  before(async () => {
    vt = await startFakeVirusTotal({
      [`files/${MD5}`]: vtFixture("file"),
      [`files/${HOSTILE_MD5}`]: hostileFile(),
    });
    db = await freshDatabase("sqlite");
    server = await startIntelServer({
      databaseUrl: db.url,
      env: {
        INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
        INTEL_VENDOR_QUOTA_VIRUSTOTAL: "100/1000",
        INTEL_VENDOR_RETRIES: "0",
        ADMIN_LOGIN_FAILURES_PER_USER: "3",
      },
    });
    panel = `${server.url}/${server.services.adminPath}`;
    await createUser(server.services.store.db, ADMIN.username, ADMIN.password, true);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    page = await context.newPage();
    // Confirmations of dangerous buttons are accepted; any other dialog would be a script we did not write.
    page.on("dialog", async (d) => {
      dialogs.push({ type: d.type(), message: d.message() });
      await (d.type() === "confirm" ? d.accept() : d.dismiss());
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await vt?.close();
    await db?.drop();
  });

  async function login(p: Page, username: string, password: string) {
    await p.goto(`${panel}/login`);
    await p.fill('input[name="username"]', username);
    await p.fill('input[name="password"]', password);
    await p.click('button[type="submit"]');
  }

  it("is only at its own path: /admin/ and other guesses answer 404", async () => {
    assert.equal(server.services.adminPath.length, 32);
    for (const guess of ["/admin/", "/admin", "/administrator/", `/${"0".repeat(32)}/`, "/login"]) {
      const res = await fetch(server.url + guess);
      assert.equal(res.status, 404, guess);
    }
    const res = await fetch(`${panel}/users`, { redirect: "manual" });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location") ?? "", /\/login\?next=/);
  });

  it("refuses a wrong password, then throttles the username with a clear message", async () => {
    await login(page, "mallory", "wrong-password-1");
    assert.match((await page.textContent(".flash.error")) ?? "", /Wrong username or password/);
    await screenshot(page, "login-failed");
    for (let i = 2; i <= 3; i++) await login(page, "mallory", `wrong-password-${i}`);
    await login(page, "mallory", "wrong-password-4");
    assert.match(
      (await page.textContent(".flash.error")) ?? "",
      /Too many failed logins for this username\. Try again in \d+ minutes?/,
    );
    await screenshot(page, "login-throttled");
    // Another username from the same address is not locked by mallory's failures.
    await login(page, ADMIN.username, ADMIN.password);
    await page.waitForURL(/\/investigate$/);
    const cookie = (await context.cookies()).find((c) => c.name === "loupe_session");
    assert.ok(cookie, "a session cookie");
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Strict");
  });

  it("creates a user, generates a key shown once, and the key works against POST /api/request/", async () => {
    await page.goto(`${panel}/users`);
    // A regular user has no password (only admins sign in to the panel): typing one is refused.
    await page.fill('form[action$="/users"] input[name="username"]', "analyst");
    await page.fill('form[action$="/users"] input[name="password"]', "analyst-password");
    await page.click('form[action$="/users"] button[type="submit"]');
    assert.match(
      (await page.textContent(".flash.error")) ?? "",
      /Regular users have no password: they use API keys/,
    );
    assert.equal(await findUser(server.services.store.db, "analyst"), undefined);
    await page.fill('form[action$="/users"] input[name="username"]', "analyst");
    await page.click('form[action$="/users"] button[type="submit"]');
    assert.match(
      (await page.textContent(".flash.ok")) ?? "",
      /Created analyst\. Regular users have no password: generate an API key for them here/,
    );
    assert.match((await page.textContent("#no-password")) ?? "", /cannot sign in to the panel/);
    assert.equal(await page.locator('form[action$="/password"]').count(), 0);
    await page.goto(`${panel}/users`);
    const row = page.locator("tr", { hasText: "analyst" });
    assert.match((await row.textContent()) ?? "", /user\s*active/);
    await screenshot(page, "users");

    await row.locator("a", { hasText: "API keys" }).click();
    await page.click('button:has-text("Generate a new key")');
    const key = (await page.textContent("#new-key"))?.trim() ?? "";
    assert.match(key, /^[0-9a-f]{40}$/);
    await screenshot(page, "token-created");

    const res = await fetch(`${server.url}/api/request/`, {
      method: "POST",
      headers: { authorization: `Token ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "DOMAIN", value: "example.net" }),
    });
    assert.equal(res.status, 201);

    // The list shows the key by its prefix and its last use; revoking it makes the API refuse it.
    await page.goto(`${panel}/users`);
    await page.locator("tr", { hasText: "analyst" }).locator("a", { hasText: "API keys" }).click();
    const tokenRow = page.locator("tr", { hasText: `${key.slice(0, 8)}…` });
    // Created and last used, shown in local time with UTC on hover.
    const titles = await tokenRow.locator("time").evaluateAll((ts) => ts.map((t) => t.getAttribute("title")));
    assert.equal(titles.length, 2);
    for (const title of titles) assert.match(title ?? "", / UTC$/);
    assert.match((await tokenRow.textContent()) ?? "", /active/);
    await screenshot(page, "tokens");
    await tokenRow.locator('button:has-text("Revoke")').click();
    assert.match((await page.textContent(".flash.ok")) ?? "", /Key revoked/);
    const refused = await fetch(`${server.url}/api/types/`, { headers: { authorization: `Token ${key}` } });
    assert.equal(refused.status, 401);
  });

  it("deactivates a user (their key stops working) and reactivates them", async () => {
    const analyst = await findUser(server.services.store.db, "analyst");
    const { key } = await createToken(server.services.store.db, analyst!.id);
    await page.goto(`${panel}/users`);
    await page.locator("tr", { hasText: "analyst" }).locator('button:has-text("Deactivate")').click();
    assert.match((await page.textContent(".flash.ok")) ?? "", /analyst is deactivated/);
    assert.deepEqual(dialogs.at(-1), {
      type: "confirm",
      message: "Deactivate analyst? Their API keys stop working at once.",
    });
    const refused = await fetch(`${server.url}/api/types/`, { headers: { authorization: `Token ${key}` } });
    assert.equal(refused.status, 401);
    await page.locator("tr", { hasText: "analyst" }).locator('button:has-text("Reactivate")').click();
    const ok = await fetch(`${server.url}/api/types/`, { headers: { authorization: `Token ${key}` } });
    assert.equal(ok.status, 200);
  });

  it("adds vendor credentials and tests them with one harmless call", async () => {
    await page.goto(`${panel}/credentials`);
    const card = page.locator("#vendor-virustotal");
    assert.match((await card.textContent()) ?? "", /not configured/);
    await card.locator('input[name="api_key"]').fill(VT_KEY);
    await card.locator('button:has-text("Add credentials")').click();
    assert.match((await page.textContent(".flash.ok")) ?? "", /Added VirusTotal credentials #\d+/);
    assert.match((await page.locator("#vendor-virustotal").textContent()) ?? "", /configured · 1 set/);
    // The secret is not shown back: only its first characters.
    assert.doesNotMatch(await page.content(), new RegExp(VT_KEY));
    const calls = vt.calls.length;
    await page.locator("#vendor-virustotal").locator('button:has-text("Test")').click();
    assert.match((await page.textContent(".flash.ok")) ?? "", /VirusTotal test passed in \d+ ms/);
    assert.equal(vt.calls.length, calls + 1);
    await screenshot(page, "credentials");

    await addCredentials(server.services.store.db, "virustotal", { api_key: "a-wrong-key" });
    await page.goto(`${panel}/credentials`);
    await page
      .locator("#vendor-virustotal tr", { hasText: "a-wr…" })
      .locator('button:has-text("Test")')
      .click();
    assert.match(
      (await page.textContent(".flash.error")) ?? "",
      /VirusTotal test failed .*invalid_credentials/,
    );
    await page
      .locator("#vendor-virustotal tr", { hasText: "a-wr…" })
      .locator('button:has-text("Remove")')
      .click();
    assert.match((await page.textContent(".flash.ok")) ?? "", /Removed credentials/);
  });

  it("investigates a hash: progress, then the graph as SVG with the expected labels, tables and raw JSON", async () => {
    vt.delayMs = 400; // long enough to see the progress indicator
    await page.goto(`${panel}/investigate`);
    await page.selectOption('select[name="super_type"]', "OBSERVABLE");
    await page.selectOption('select[name="type"]', "MD5");
    await page.fill('input[name="value"]', MD5);
    await page.click('#investigate button[type="submit"]');
    await page.waitForSelector("#progress:not([hidden])");
    await page.waitForSelector("#graph svg", { timeout: 20_000 });
    vt.delayMs = 0;
    const labels = await page.locator("#graph svg text").allTextContents();
    const drawn = labels.join(" ");
    for (const expected of [
      MD5,
      "3395856ce81f2b7382dee72602f798b642f14140",
      "eicar/test",
      "associated threat",
    ]) {
      assert.ok(drawn.includes(expected), `graph shows ${expected}: ${drawn}`);
    }
    assert.match((await page.locator("#sources").textContent()) ?? "", /virustotal\s*ok/);
    await screenshot(page, "investigate");

    const raw = await page.request.get(server.url + (await page.getAttribute("#raw-link", "href")));
    assert.equal(raw.status(), 200);
    const doc = (await raw.json()) as {
      root_entity: { id: string; name: string };
      entities: Array<{ id: string }>;
      relations: unknown[];
      graph: string;
    };
    assert.equal(doc.root_entity.name, MD5);
    assert.match(doc.graph, /^flowchart LR/);
    const shown = new Set([doc.root_entity.id, ...doc.entities.map((e) => e.id)]);
    assert.equal(await page.locator("#entities tbody tr").count(), shown.size);
    // Relations name their ends, the root included, never by bare id.
    assert.doesNotMatch((await page.locator("#relations").textContent()) ?? "", /[0-9a-f]{8}-[0-9a-f]{4}-/);
    assert.equal(await page.locator("#relations tbody tr").count(), doc.relations.length);
    assert.ok(doc.relations.length >= 3);
  });

  it("says when nobody was asked, and lowers a subject's marking from its entity page, audited", async () => {
    const value = "0badc0de0badc0de0badc0de0badc0de";
    const subject = { super_type: "OBSERVABLE", type: "MD5", value };
    assert.equal((await pollUntilDone(server, { ...subject, tlp: "RED" })).status, 200);
    await page.goto(`${panel}/investigate?super_type=OBSERVABLE&type=MD5&value=${value}`);
    await page.waitForSelector("#nobody-asked:not([hidden])", { timeout: 20_000 });
    assert.match((await page.locator("#nobody-asked").textContent()) ?? "", /Nobody was asked: TLP:RED/);
    const { id } = await server.services.store.db
      .selectFrom("entities")
      .select("id")
      .where("name", "=", value)
      .executeTakeFirstOrThrow();
    await page.goto(`${panel}/entities/${id}`);
    const form = page.locator('form[action$="/marking"]');
    await form.locator('select[name="tlp"]').selectOption("CLEAR");
    await form.locator('button[type="submit"]').click();
    await page.waitForSelector("text=is now TLP:WHITE / PAP:WHITE");
    const audit = await server.services.store.db
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "marking.set")
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [audit.actor, audit.target, audit.detail],
      [ADMIN.username, `OBSERVABLE/MD5/${value}`, "TLP RED → WHITE, PAP WHITE → WHITE"],
    );
    const callsBefore = vt.calls.length;
    await (
      await server.api("/api/request/", { method: "POST", body: JSON.stringify({ ...subject, force: true }) })
    ).arrayBuffer();
    assert.equal((await pollUntilDone(server, subject)).status, 200);
    assert.equal(
      vt.calls.slice(callsBefore).filter((c) => c.includes(value)).length,
      1,
      "CLEAR reaches VirusTotal",
    );
  });

  it("shows a hostile vendor string as text everywhere and still draws the graph", async () => {
    await page.goto(`${panel}/investigate?super_type=OBSERVABLE&type=MD5&value=${HOSTILE_MD5}`);
    await page.waitForSelector("#graph svg", { timeout: 20_000 });
    const cells = await page.locator("#entities tbody td").allTextContents();
    assert.ok(cells.includes(HOSTILE), `the name is a cell's text: ${JSON.stringify(cells)}`);
    // Mermaid lays words out as separate SVG spans: compare without the spaces between them.
    const drawn = (await page.locator("#graph svg text").allTextContents()).join("").replace(/\s+/g, "");
    assert.ok(drawn.includes(HOSTILE.replace(/\s+/g, "")), `graph label: ${drawn}`);
    assert.doesNotMatch(drawn, /&#|#\d+;/, "no entity code is left raw, however Mermaid split the label");
    assert.equal(await page.locator("img").count(), 0, "no <img> made it into the page");
    await screenshot(page, "investigate-hostile");

    // The entity page and the search list render it as text too.
    await page.goto(`${panel}/entities?q=${encodeURIComponent("onerror")}`);
    await page.locator("a", { hasText: "onerror" }).click();
    assert.equal((await page.textContent("h1"))?.trim(), HOSTILE);
    assert.equal(await page.locator("img").count(), 0);
    assert.match((await page.locator("table").first().textContent()) ?? "", /source_vendor\s*virustotal/);
    await screenshot(page, "entity");
    assert.deepEqual(
      dialogs.filter((d) => d.type !== "confirm"),
      [],
      "no script of a vendor's ran",
    );
  });

  it("lists requests with each vendor's outcome, filtered by status", async () => {
    await page.goto(`${panel}/requests`);
    assert.match(
      (await page.locator("table.requests").textContent()) ?? "",
      new RegExp(`${MD5}[\\s\\S]*SUCCEEDED`),
    );
    await page.selectOption('select[name="status"]', "FAILED");
    await page.click('button:has-text("Filter")');
    assert.match(page.url(), /status=FAILED/);
    assert.doesNotMatch((await page.locator("main").textContent()) ?? "", new RegExp(MD5));
    await page.goto(`${panel}/requests?status=SUCCEEDED`);
    assert.match((await page.locator("table.requests").textContent()) ?? "", /virustotal\s*ok/);
    await screenshot(page, "requests");
  });

  it("shows the status: workers, queue, cached counts, connectors", async () => {
    await page.goto(`${panel}/status`);
    const tiles = await page.locator(".tile").allTextContents();
    assert.ok(
      tiles.some((t) => /^\s*1\s*workers/.test(t)),
      tiles.join("|"),
    );
    assert.ok(tiles.some((t) => /entities/.test(t)));
    const main = (await page.locator("main").textContent()) ?? "";
    assert.match(main, /virustotal\s*VirusTotal\s*usable\s*1 day\s*\d+ of 100 a minute · \d+ of 1000 a day/);
    await screenshot(page, "status");
  });

  it("rejects a form posted without its CSRF token, and changes nothing", async () => {
    const res = await page.request.post(`${panel}/users`, {
      form: { username: "csrf-victim", password: "csrf-password" },
    });
    assert.equal(res.status(), 403);
    assert.match(await res.text(), /csrf_failed/);
    const wrong = await page.request.post(`${panel}/users`, {
      form: { username: "csrf-victim", password: "csrf-password", csrf: "not-the-token" },
    });
    assert.equal(wrong.status(), 403);
    const ask = await page.request.post(`${panel}/investigate/ask`, {
      data: { super_type: "OBSERVABLE", type: "MD5", value: MD5 },
    });
    assert.equal(ask.status(), 403);
    assert.equal((await ask.json()).code, "csrf_failed");
    await page.goto(`${panel}/users`);
    assert.doesNotMatch((await page.locator("main").textContent()) ?? "", /csrf-victim/);
  });

  it("lets a signed-in admin browse the API docs, and logs out", async () => {
    const docs = await page.request.get(`${server.url}/api/schema/`);
    assert.equal(docs.status(), 200);
    await page.click('button:has-text("Log out")');
    await page.waitForURL(/\/login$/);
    const after = await page.request.get(`${server.url}/api/schema/`);
    assert.equal(after.status(), 401);
    const res = await page.request.get(`${panel}/users`, { maxRedirects: 0 });
    assert.equal(res.status(), 303);
  });
});
