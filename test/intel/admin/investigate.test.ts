/**
 * Investigate in Chromium: the type follows the value as it is typed (the selects override it),
 * and the result opens with a verdict card built from the vendors' own verdicts, with links.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { addCredentialSet } from "../../../src/intel/services/credentials.ts";
import { createUser } from "../../../src/intel/store/accounts.ts";
import { launchChromium, screenshot } from "../../helpers/browser.ts";
import { type FakeVendor, startFakeVirusTotal, VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../../helpers/intel-server.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const ADMIN = { username: "analyst-admin", password: "correct horse battery" };

describe("Investigate in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let vt: FakeVendor;
  let server: TestIntelServer;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let browser: Browser;
  let page: Page;
  let panel: string;

  before(async () => {
    vt = await startFakeVirusTotal({
      [`files/${MD5}`]: vtFixture("file"),
      "domains/example.org": vtFixture("domain"),
    });
    db = await freshDatabase("sqlite");
    server = await startIntelServer({
      databaseUrl: db.url,
      env: { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url, INTEL_VENDOR_RETRIES: "0" },
    });
    panel = `${server.url}/${server.services.adminPath}`;
    await createUser(server.services.store.db, ADMIN.username, ADMIN.password, true);
    await addCredentialSet(server.services.store.db, server.services.connectors[0]!, { api_key: VT_KEY });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${panel}/login`);
    await page.fill('input[name="username"]', ADMIN.username);
    await page.fill('input[name="password"]', ADMIN.password);
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/investigate$/);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await vt?.close();
    await db?.drop();
  });

  const typeShown = () => page.locator('select[name="type"]').inputValue();

  it("detects the type from the value as it is typed, and the select overrides it", async () => {
    // Only types an enabled vendor looks up are offered; VirusTotal's are these.
    const cases: Array<[string, string]> = [
      [MD5, "MD5"],
      ["3395856ce81f2b7382dee72602f798b642f14140", "SHA1"],
      ["275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f", "SHA256"],
      ["192.0.2.10", "IPV4"],
      ["2001:db8::1", "IPV6"],
      ["https://example.org/a?b=c", "URL"],
      ["cdn-updates.example.org", "DOMAIN"],
    ];
    await page.goto(`${panel}/investigate`);
    for (const [value, type] of cases) {
      await page.fill('input[name="value"]', value);
      assert.equal(await typeShown(), type, value);
    }
    // A type no enabled vendor looks up is named, not silently replaced.
    for (const value of ["CVE-2024-3094", "someone@example.org", "192.0.2.0/24"]) {
      await page.fill('input[name="value"]', value);
      assert.match((await page.textContent("#detected")) ?? "", /which no enabled vendor looks up/, value);
    }
    await page.fill('input[name="value"]', "192.0.2.10");
    await page.selectOption('select[name="type"]', "DOMAIN");
    await page.fill('input[name="value"]', MD5);
    assert.equal(await typeShown(), "DOMAIN", "a chosen type is kept");
  });

  it("opens the form of an unsupported type on a detected type, not IPv4", async () => {
    await page.goto(`${panel}/investigate?super_type=DATA&type=REPORT&value=${MD5}`);
    assert.equal(await typeShown(), "MD5");
  });

  it("shows a verdict card on top: assessment, detections, dates, threats, tags, vendors with links", async () => {
    await page.goto(`${panel}/investigate`);
    await page.fill('input[name="value"]', MD5);
    await page.click('#investigate button[type="submit"]');
    await page.waitForSelector("#result:not([hidden]) #verdict-vendors li", { timeout: 20_000 });
    assert.equal(await page.textContent("#verdict-assessment"), "malicious");
    assert.equal(await page.textContent("#verdict-detections"), "VirusTotal 61/76");
    assert.equal(await page.textContent("#verdict-tags"), "text, attachment");
    assert.match((await page.getAttribute("#verdict-first time", "title")) ?? "", /^2006-05-22 .* UTC$/);
    const vendor = (await page.textContent("#verdict-vendors li")) ?? "";
    assert.match(vendor, /virustotal malicious · ok · just now/);
    assert.equal(
      await page.getAttribute("#verdict-vendors a", "href"),
      `https://www.virustotal.com/gui/search/${MD5}`,
    );
    // The verdict comes before the graph and the tables.
    assert.equal(await page.getAttribute("#result > section", "id"), "verdict");
    assert.equal(await page.textContent("#verdict + h2"), "Graph");
    await screenshot(page, "investigate-verdict");

    // Entity names are links; dates are local time with UTC on hover.
    const firstLink = page.locator("#entities tbody tr td a").first();
    assert.equal(await firstLink.textContent(), MD5);
    assert.match((await page.getAttribute("#entities tbody time", "title")) ?? "", / UTC$/);
    await page.locator("#verdict-threats a", { hasText: "eicar/test" }).click();
    assert.equal((await page.textContent("h1"))?.trim(), "eicar/test");
  });

  it("calls a domain with no detections clean", async () => {
    await page.goto(`${panel}/investigate?value=example.org`);
    await page.waitForSelector("#result:not([hidden]) #verdict-vendors li", { timeout: 20_000 });
    assert.equal(await page.textContent("#verdict-assessment"), "clean");
    assert.equal(await page.textContent("#verdict-detections"), "VirusTotal 0/93");
    assert.equal(await page.textContent("#verdict-threats"), "none named");
  });
});
