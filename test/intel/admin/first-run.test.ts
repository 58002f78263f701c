/**
 * A first-time admin in Chromium: with no vendor key, Investigate and Status say no vendor is
 * configured (or only keyless ones) and link to Vendor credentials; once a key is added the hint goes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { addCredentialSet } from "../../../src/intel/services/credentials.ts";
import { createUser } from "../../../src/intel/store/accounts.ts";
import { launchChromium, screenshot } from "../../helpers/browser.ts";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../../helpers/intel-server.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";

const ADMIN = { username: "first-admin", password: "correct horse battery" };

async function openPanel(connectors: string) {
  const db = await freshDatabase("sqlite");
  const server = await startIntelServer({
    databaseUrl: db.url,
    env: { INTEL_CONNECTORS: connectors, INTEL_VENDOR_RETRIES: "0" },
    worker: false,
  });
  await createUser(server.services.store.db, ADMIN.username, ADMIN.password, true);
  return { db, server, panel: `${server.url}/${server.services.adminPath}` };
}

async function login(page: Page, panel: string) {
  await page.goto(`${panel}/login`);
  await page.fill('input[name="username"]', ADMIN.username);
  await page.fill('input[name="password"]', ADMIN.password);
  await page.click('button[type="submit"]');
  await page.waitForURL(/\/investigate$/);
}

describe("first-run hints in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let browser: Browser;
  const opened: Array<{ db: { drop(): Promise<void> }; server: TestIntelServer }> = [];

  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    for (const o of opened) {
      await o.server.close();
      await o.db.drop();
    }
  });

  it("says no vendor is configured on Investigate and Status, links to credentials, and goes once a key is added", async () => {
    const o = await openPanel("virustotal,shodan");
    opened.push(o);
    const page = await browser.newPage();
    await login(page, o.panel);
    const hint = page.locator("#vendor-hint");
    assert.match((await hint.textContent()) ?? "", /No vendor is configured\..*2 vendors/s);
    await screenshot(page, "first-run-investigate");
    await page.goto(`${o.panel}/status`);
    assert.match((await hint.textContent()) ?? "", /No vendor is configured/);
    await hint.locator("a", { hasText: "Vendor credentials" }).click();
    await page.waitForURL(/\/credentials$/);
    assert.equal((await page.textContent("h1"))?.trim(), "Vendor credentials");

    const vt = o.server.services.connectors.find((c) => c.id === "virustotal")!;
    await addCredentialSet(o.server.services.store.db, vt, { api_key: "k".repeat(64) });
    for (const path of ["investigate", "status"]) {
      await page.goto(`${o.panel}/${path}`);
      assert.equal(await hint.count(), 0, `no hint on ${path} once a key is set`);
    }
    await page.close();
  });

  it("says honestly when only keyless vendors can be asked", async () => {
    const o = await openPanel("virustotal,hashlookup");
    opened.push(o);
    const page = await browser.newPage();
    await login(page, o.panel);
    const text = (await page.locator("#vendor-hint").textContent()) ?? "";
    assert.match(text, /only keyless vendors/);
    assert.match(text, /CIRCL hashlookup/);
    assert.doesNotMatch(text, /No vendor is configured\./);
    await page.close();
  });
});
