/**
 * A first-time admin's walk in Chromium, at 1280 and 375 px, from an empty install to a verdict:
 * log in → "no vendor is configured" → check a key before saving it, add it, test it → investigate a value typed without
 * choosing a type → the verdict card → a graph node → its entity page → back. No step scrolls
 * sideways; each is screenshotted (test-output/screenshots/walk-*); the audit log has the changes.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { screenshot } from "../../helpers/browser.ts";
import { VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { ADMIN, type AdminHarness, logIn, openAdminHarness } from "./harness.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";

async function noSideScroll(page: Page, width: number, step: string) {
  const scroll = Number(await page.evaluate("document.documentElement.scrollWidth"));
  assert.ok(scroll <= width, `${step}: ${scroll} px wide at ${width} px`);
}

describe("a first-time admin's walk in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  const opened: AdminHarness[] = [];
  after(async () => {
    for (const h of opened) await h.close();
  });

  for (const width of [1280, 375]) {
    it(`walks from an empty install to a verdict at ${width} px`, async () => {
      const h = await openAdminHarness({
        viewport: { width, height: 900 },
        virustotal: { [`files/${MD5}`]: vtFixture("file") },
      });
      opened.push(h);
      const { page, panel } = h;
      const shot = (step: string) => screenshot(page, `walk-${width}-${step}`);
      await page.context().clearCookies();
      await logIn(page, panel, ADMIN.username, ADMIN.password);
      await page.waitForURL(/\/investigate$/);

      assert.match((await page.textContent("#vendor-hint")) ?? "", /No vendor is configured/);
      await noSideScroll(page, width, "first run");
      await shot("1-first-run");

      await page.locator("#vendor-hint a", { hasText: "Vendor credentials" }).click();
      const card = page.locator("#vendor-virustotal");
      await card.locator('input[name="api_key"]').fill(VT_KEY);
      await card.locator('button:has-text("Check before saving")').click();
      assert.match((await page.textContent(".flash.ok")) ?? "", /VirusTotal test passed .*Not saved yet/);
      await noSideScroll(page, width, "key checked before saving");
      await shot("2-key-checked");
      await page.locator("#vendor-virustotal").locator('button:has-text("Add credentials")').click();
      await page.locator("#vendor-virustotal").locator('button:has-text("Test")').click();
      assert.match((await page.textContent(".flash.ok")) ?? "", /VirusTotal test passed/);
      await noSideScroll(page, width, "credentials");
      await shot("2-credentials");
      assert.match(
        (await page.locator("#vendor-virustotal tr", { hasText: "#1" }).textContent()) ?? "",
        /passed just now/,
      );

      await page.click('nav a:has-text("Investigate")');
      assert.equal(await page.locator("#vendor-hint").count(), 0);
      await page.fill('input[name="value"]', MD5);
      assert.equal(await page.locator('select[name="type"]').inputValue(), "MD5");
      await page.click('#investigate button[type="submit"]');
      await page.waitForSelector("#graph svg g.node.linked", { timeout: 20_000 });
      assert.equal(await page.textContent("#verdict-assessment"), "malicious");
      await noSideScroll(page, width, "verdict");
      await page.locator("#verdict").scrollIntoViewIfNeeded();
      await shot("3-verdict");

      await page.click('.graph-controls button[title="Fit the whole graph"]');
      await page.locator("#graph g.node.linked", { hasText: "eicar/test" }).click();
      await page.waitForURL(/\/entities\/[^/]+$/);
      assert.equal((await page.textContent("h1"))?.trim(), "eicar/test");
      await noSideScroll(page, width, "entity");
      await shot("4-entity");

      await page.goBack();
      await page.waitForSelector("#verdict-vendors li", { timeout: 20_000 });
      assert.equal(await page.textContent("#verdict-assessment"), "malicious");

      await page.click('nav a:has-text("Audit log")');
      const log = (await page.locator("table.audit").textContent()) ?? "";
      assert.match(log, /credentials\.test\s*virustotal/);
      assert.match(log, /credentials\.add\s*virustotal/);
      assert.match(log, /credentials\.test\s*virustotal\s*unsaved set passed/);
      assert.match(log, new RegExp(ADMIN.username));
      await noSideScroll(page, width, "audit log");
      await shot("5-audit");
    });
  }
});
