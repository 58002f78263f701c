/**
 * The panel on a phone (375 px) and a laptop (1280 px) in Chromium: no page scrolls sideways, the
 * navigation stays short, table headers never break inside a word, and every timestamp is local
 * time with its UTC value on hover.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { BrowserContext } from "playwright-core";
import { addCredentialSet } from "../../../src/intel/services/credentials.ts";
import { createUser } from "../../../src/intel/store/accounts.ts";
import { screenshot } from "../../helpers/browser.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { type AdminHarness, assertNoSidewaysScroll, logIn, openAdminHarness } from "./harness.ts";

const LOCKED = "an-analyst-with-a-rather-long-username@example.org";
const PAGES = [
  "investigate",
  "analyse",
  "analyses",
  "requests",
  "entities",
  "users",
  "credentials",
  "status",
];

describe("panel widths in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let h: AdminHarness;
  let context: BrowserContext;
  let panel: string;

  before(async () => {
    h = await openAdminHarness({
      worker: false,
      viewport: { width: 375, height: 800 },
      env: { ADMIN_LOGIN_FAILURES_PER_USER: "2", ADMIN_LOGIN_FAILURES_PER_IP: "100" },
    });
    ({ panel } = h);
    const { server } = h;
    const sdb = server.services.store.db;
    await createUser(sdb, LOCKED, "a-long-password", true);
    // A locked-out admin's row shows three buttons (keys and password, lift the lock, deactivate): the widest row.
    const stranger = await h.browser.newPage();
    for (const attempt of ["wrong-1", "wrong-2"]) await logIn(stranger, panel, LOCKED, attempt);
    await stranger.close();
    await addCredentialSet(server.services, server.services.connectors[0]!, {
      api_key: "0123456789abcdef".repeat(4),
    });
    for (const value of ["example.org", "a-very-long-subdomain-name.of-some-example-domain.example.net"]) {
      const res = await server.api("/api/request/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ super_type: "OBSERVABLE", type: "DOMAIN", value }),
      });
      assert.equal(res.status, 201);
    }
    context = h.page.context();
  });
  after(async () => h?.close());

  for (const width of [375, 1280]) {
    it(`no page scrolls sideways at ${width} px, and headers wrap only between words`, async () => {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 800 });
      // users/1: the server's test user, who has an API key.
      for (const name of [...PAGES, "users/1"]) {
        await page.goto(`${panel}/${name}`);
        if (name === "users")
          assert.equal(
            await page.locator("tr", { hasText: LOCKED }).locator("text=Lift the lock").count(),
            1,
          );
        await assertNoSidewaysScroll(page, name);
        // A header's text is laid out in as many lines as it has words, at most.
        const broken = await page.evaluate(`[...document.querySelectorAll("main th")]
          .filter((th) => th.offsetParent !== null && th.textContent.trim())
          .filter((th) => {
            // Line boxes of the header's text nodes only (a sort button adds boxes of its own).
            const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
            let lines = 0;
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
              const r = document.createRange(); r.selectNodeContents(n);
              lines += r.getClientRects().length;
            }
            return lines > th.textContent.trim().split(/\\s+/).length;
          }).map((th) => th.textContent)`);
        assert.deepEqual(broken, [], `${name}: headers broken mid-word`);
        if (width === 375) await screenshot(page, `narrow-${name.replace("/", "-")}`);
      }
      if (width === 375) {
        const header = (await page.locator("body > header").boundingBox())!;
        assert.ok(header.height <= 100, `the header takes ${header.height} px`);
      }
      await page.close();
    });
  }

  it("shows every timestamp as local time with UTC on hover", async () => {
    const page = await context.newPage();
    for (const name of ["requests", "users/1", "credentials"]) {
      await page.goto(`${panel}/${name}`);
      const times = page.locator("main time[datetime]");
      assert.ok((await times.count()) > 0, name);
      for (const t of await times.all()) {
        assert.match((await t.getAttribute("title")) ?? "", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
        assert.doesNotMatch((await t.textContent()) ?? "", /UTC|T\d\d:/);
      }
    }
    await page.close();
  });

  it("sorts Users by a column and searches them by name", async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${panel}/users`);
    const names = async () =>
      (await page.locator("table.sortable tbody tr td:first-child a").allTextContents()).map((t) => t.trim());
    const all = await names();
    assert.equal(all.length, 3);
    await page.click('th button.sort:has-text("Username")');
    assert.deepEqual(await names(), [...all].sort());
    assert.equal(await page.getAttribute('th:has(button:has-text("Username"))', "aria-sort"), "ascending");
    await page.click('th button.sort:has-text("Username")');
    assert.deepEqual(await names(), [...all].sort().reverse());
    await page.fill('input[name="q"]', "ANALYST");
    await page.click('button:has-text("Search")');
    assert.deepEqual(await names(), ["an-analyst-with-a-rather-long-username@example.org"]);
    await page.close();
  });
});
