/**
 * The panel on a phone (375 px) and a laptop (1280 px) in Chromium: no page scrolls sideways, the
 * navigation stays short, table headers never break inside a word, and every timestamp is local
 * time with its UTC value on hover.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext } from "playwright-core";
import { addCredentialSet } from "../../../src/intel/services/credentials.ts";
import { createToken, createUser } from "../../../src/intel/store/accounts.ts";
import { launchChromium, screenshot } from "../../helpers/browser.ts";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../../helpers/intel-server.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";

const ADMIN = { username: "narrow-admin", password: "correct horse battery" };
const PAGES = ["investigate", "requests", "entities", "users", "credentials", "status"];

describe("panel widths in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let server: TestIntelServer;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let browser: Browser;
  let context: BrowserContext;
  let panel: string;

  before(async () => {
    db = await freshDatabase("sqlite");
    server = await startIntelServer({ databaseUrl: db.url, worker: false });
    panel = `${server.url}/${server.services.adminPath}`;
    const sdb = server.services.store.db;
    const admin = await createUser(sdb, ADMIN.username, ADMIN.password, true);
    await createToken(sdb, admin.id);
    await createUser(sdb, "an-analyst-with-a-rather-long-username@example.org", "a-long-password", false);
    await addCredentialSet(sdb, server.services.connectors[0]!, { api_key: "0123456789abcdef".repeat(4) });
    for (const value of ["example.org", "a-very-long-subdomain-name.of-some-example-domain.example.net"]) {
      const res = await server.api("/api/request/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ super_type: "OBSERVABLE", type: "DOMAIN", value }),
      });
      assert.equal(res.status, 201);
    }
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${panel}/login`);
    await page.fill('input[name="username"]', ADMIN.username);
    await page.fill('input[name="password"]', ADMIN.password);
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/investigate$/);
    await page.close();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await db?.drop();
  });

  for (const width of [375, 1280]) {
    it(`no page scrolls sideways at ${width} px, and headers wrap only between words`, async () => {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 800 });
      for (const name of [...PAGES, "users/1"]) {
        await page.goto(`${panel}/${name}`);
        const scroll = Number(await page.evaluate("document.documentElement.scrollWidth"));
        assert.ok(scroll <= width, `${name} is ${scroll} px wide at ${width} px`);
        // A header's text is laid out in as many lines as it has words, at most.
        const broken = await page.evaluate(`[...document.querySelectorAll("main th")]
          .filter((th) => th.offsetParent !== null && th.textContent.trim())
          .filter((th) => {
            const r = document.createRange(); r.selectNodeContents(th);
            return r.getClientRects().length > th.textContent.trim().split(/\\s+/).length;
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
});
