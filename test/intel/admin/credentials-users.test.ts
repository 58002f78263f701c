/**
 * Vendor credentials and users in Chromium: the "N of M configured" summary, where to get a key,
 * readable field names, the flash message in view after Add/Test/Remove; a placeholder key refused; a key checked before it is saved (nothing stored), a set whose last test failed shown as failed;
 * a locked-out user is shown and an admin lifts the lock; a failed login keeps the username.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Locator, Page } from "playwright-core";
import { listCredentialSets } from "../../../src/intel/services/credentials.ts";
import { createUser } from "../../../src/intel/store/accounts.ts";
import { screenshot } from "../../helpers/browser.ts";
import { VT_KEY } from "../../helpers/fake-virustotal.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { ADMIN, type AdminHarness, logIn, openAdminHarness } from "./harness.ts";

const OTHER = { username: "forgetful-admin", password: "another long password" };
const VIEWPORT = { width: 1280, height: 600 };

async function inView(locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  return box !== null && box.y >= 0 && box.y + box.height <= VIEWPORT.height;
}

describe("credentials and users in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let h: AdminHarness;
  let browser: Browser;
  let page: Page;
  let panel: string;

  before(async () => {
    h = await openAdminHarness({
      worker: false,
      viewport: VIEWPORT,
      virustotal: {},
      env: {
        INTEL_CONNECTORS: "hashlookup,shodan,virustotal",
        ADMIN_LOGIN_FAILURES_PER_USER: "3",
        ADMIN_LOGIN_FAILURES_PER_IP: "100",
      },
    });
    ({ browser, page, panel } = h);
    await createUser(h.server.services.store.db, OTHER.username, OTHER.password, true);
    // This suite logs in through the form itself.
    await page.context().clearCookies();
  });
  after(async () => h?.close());

  it("keeps the username after a failed login", async () => {
    await logIn(page, panel, ADMIN.username, "not the password");
    assert.match((await page.textContent(".flash.error")) ?? "", /Wrong username or password/);
    assert.equal(await page.inputValue('input[name="username"]'), ADMIN.username);
    assert.equal(await page.inputValue('input[name="password"]'), "");
    await page.fill('input[name="password"]', ADMIN.password);
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/investigate$/);
  });

  it("summarises, links to where keys are made, names fields for people, and keeps the message in view", async () => {
    await page.goto(`${panel}/credentials`);
    assert.match((await page.textContent("#summary")) ?? "", /1 of 3 vendors configured \(1 needs no key\)/);
    const card = page.locator("#vendor-virustotal");
    assert.equal(
      await card.locator("a", { hasText: "www.virustotal.com" }).getAttribute("href"),
      "https://www.virustotal.com/gui/my-apikey",
    );
    const labels = await card.locator("form label").allTextContents();
    assert.deepEqual(
      labels.map((l) => l.trim()),
      ["API key"],
    );
    assert.doesNotMatch((await page.locator("main").textContent()) ?? "", /api_key/);

    await card.locator('input[name="api_key"]').fill(VT_KEY);
    await card.locator('button:has-text("Add credentials")').click();
    const ok = page.locator(".flash.ok");
    assert.match((await ok.textContent()) ?? "", /Added VirusTotal credentials/);
    assert.ok(await inView(ok), "the message is on screen after Add");
    assert.ok(await inView(page.locator("#vendor-virustotal h2")), "and so is the card's title");
    assert.match((await page.textContent("#summary")) ?? "", /2 of 3 vendors configured/);
    assert.match((await page.locator("#vendor-virustotal td").nth(1).textContent()) ?? "", /API key: fake…/);
    await screenshot(page, "credentials-added");

    await page.locator("#vendor-virustotal").locator('button:has-text("Test")').click();
    assert.match((await ok.textContent()) ?? "", /VirusTotal test passed/);
    assert.ok(await inView(ok), "the message is on screen after Test");
    await page.locator("#vendor-virustotal").locator('button:has-text("Remove")').click();
    assert.match((await ok.textContent()) ?? "", /Removed credentials/);
    assert.ok(await inView(ok), "the message is on screen after Remove");
  });

  it("refuses a placeholder copied from an example, on Add and on Check before saving", async () => {
    const before = (await listCredentialSets(h.server.services, "virustotal")).length;
    await page.goto(`${panel}/credentials`);
    const card = page.locator("#vendor-virustotal");
    for (const button of ["Add credentials", "Check before saving"]) {
      await card.locator('input[name="api_key"]').fill("YOUR_VT_KEY");
      await card.locator(`button:has-text("${button}")`).click();
      assert.match((await page.textContent(".flash.error")) ?? "", /is a placeholder, not a key/, button);
    }
    assert.equal((await listCredentialSets(h.server.services, "virustotal")).length, before);
  });

  it("checks a key before saving it (nothing stored) and shows a set whose last test failed", async () => {
    await page.goto(`${panel}/credentials`);
    const card = page.locator("#vendor-virustotal");
    const key = card.locator('input[name="api_key"]');
    await key.fill("refused-key-000");
    await card.locator('button:has-text("Check before saving")').click();
    const flash = page.locator(".flash");
    assert.match(
      (await page.textContent(".flash.error")) ?? "",
      /VirusTotal test failed .*Nothing was saved/,
    );
    assert.ok(await inView(flash), "the message is on screen after the check");
    assert.equal(
      await page.locator("#vendor-virustotal").locator('input[name="api_key"]').inputValue(),
      "refused-key-000",
    );
    assert.equal(
      (await listCredentialSets(h.server.services, "virustotal")).length,
      0,
      "a checked key is not stored",
    );

    await page.locator("#vendor-virustotal").locator('input[name="api_key"]').fill(VT_KEY);
    await page.locator("#vendor-virustotal").locator('button:has-text("Check before saving")').click();
    assert.match((await page.textContent(".flash.ok")) ?? "", /VirusTotal test passed .*Not saved yet/);
    assert.equal((await listCredentialSets(h.server.services, "virustotal")).length, 0);
    assert.match((await page.textContent("#summary")) ?? "", /1 of 3 vendors configured/);
    await screenshot(page, "credentials-checked-before-saving");
    // The checked key is still in the form: adding it is one more click.
    await page.locator("#vendor-virustotal").locator('button:has-text("Add credentials")').click();
    assert.match((await page.textContent(".flash.ok")) ?? "", /Added VirusTotal credentials/);
    const [good] = await listCredentialSets(h.server.services, "virustotal");
    assert.ok(good);

    await page.locator("#vendor-virustotal").locator('input[name="api_key"]').fill("refused-key-000");
    await page.locator("#vendor-virustotal").locator('button:has-text("Add credentials")').click();
    const bad = (await listCredentialSets(h.server.services, "virustotal")).find((s) => s.id !== good.id)!;
    await page
      .locator(`#vendor-virustotal tr:has-text("#${bad.id}")`)
      .locator('button:has-text("Test")')
      .click();
    assert.match((await page.textContent(".flash.error")) ?? "", /VirusTotal test failed/);
    const badRow = page.locator(`#vendor-virustotal tr:has-text("#${bad.id}")`);
    assert.match((await badRow.textContent()) ?? "", /failed just now/);
    assert.match(
      (await page.locator("#vendor-virustotal header .badge").textContent()) ?? "",
      /configured · 2 sets · 1 failed its last test/,
    );
    const kept = (await listCredentialSets(h.server.services, "virustotal")).find((s) => s.id === bad.id);
    assert.equal(kept?.last_check?.ok, false, "the failed test is kept with the set");

    await page
      .locator(`#vendor-virustotal tr:has-text("#${good.id}")`)
      .locator('button:has-text("Remove")')
      .click();
    const badge = (await page.locator("#vendor-virustotal header .badge").textContent()) ?? "";
    assert.match(badge, /configured, last test failed just now/);
    assert.doesNotMatch(badge, /configured ·/);
    assert.match(
      (await page.textContent("#summary")) ?? "",
      /1 of 3 vendors configured \(1 needs no key\); 1 with credentials that failed their last test/,
    );
    assert.equal(await page.locator('#summary a[href="#vendor-virustotal"]').getAttribute("class"), "bad");
    await screenshot(page, "credentials-failed-test");

    await page.click('nav a:has-text("Audit log")');
    const log = (await page.locator("table.audit").textContent()) ?? "";
    assert.match(log, /credentials\.test\s*virustotal\s*unsaved set failed/);
    assert.match(log, /credentials\.test\s*virustotal\s*unsaved set passed/);
    assert.doesNotMatch(log, /refused-key|fake-vt-key/, "the audit log never holds a key");
    await page.goto(`${panel}/credentials`);
    await page
      .locator(`#vendor-virustotal tr:has-text("#${bad.id}")`)
      .locator('button:has-text("Remove")')
      .click();
  });

  it("shows a locked-out user and lets an admin lift the lock", async () => {
    const other = await browser.newPage({ viewport: VIEWPORT });
    for (let i = 0; i < 3; i++) await logIn(other, panel, OTHER.username, `wrong-${i}`);
    await logIn(other, panel, OTHER.username, OTHER.password);
    assert.match((await other.textContent(".flash.error")) ?? "", /Too many failed logins/);

    await page.goto(`${panel}/users`);
    const row = page.locator("tr", { hasText: OTHER.username });
    assert.match((await row.textContent()) ?? "", /locked out · \d+ min left/);
    assert.doesNotMatch(
      (await page.locator("tr", { hasText: ADMIN.username }).textContent()) ?? "",
      /locked/,
    );
    await screenshot(page, "users-locked");
    await row.locator('button:has-text("Lift the lock")').click();
    assert.match((await page.textContent(".flash.ok")) ?? "", /forgetful-admin can log in again/);
    assert.doesNotMatch(
      (await page.locator("tr", { hasText: OTHER.username }).textContent()) ?? "",
      /locked/,
    );

    await logIn(other, panel, OTHER.username, OTHER.password);
    await other.waitForURL(/\/investigate$/);
    await other.close();
  });
});
