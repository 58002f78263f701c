/**
 * What the panel's Chromium suites share: a real intel server on a fresh SQLite database with an
 * admin account, an optional fake VirusTotal, Debian's Chromium, and logging in through the form.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createUser } from "../../../src/intel/store/accounts.ts";
import { launchChromium } from "../../helpers/browser.ts";
import { type FakeVendor, startFakeVirusTotal } from "../../helpers/fake-virustotal.ts";
import { freshDatabase, startIntelServer, type TestIntelServer } from "../../helpers/intel-server.ts";

export const ADMIN = { username: "panel-admin", password: "correct horse battery" };

export interface AdminHarness {
  server: TestIntelServer;
  browser: Browser;
  /** A page of the browser, at the viewport asked for, logged in as ADMIN. */
  page: Page;
  /** The panel's URL: server URL and its secret path. */
  panel: string;
  vt?: FakeVendor;
  close(): Promise<void>;
}

/** The page does not scroll sideways at its viewport's width (what narrow.test.ts checks of every page). */
export async function assertNoSidewaysScroll(page: Page, label: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  const scroll = Number(await page.evaluate("document.documentElement.scrollWidth"));
  assert.ok(scroll <= width, `${label} is ${scroll} px wide at ${width} px`);
}

export async function logIn(page: Page, panel: string, username: string, password: string): Promise<void> {
  await page.goto(`${panel}/login`);
  await page.fill('input[name="username"]', username);
  await page.fill('input[name="password"]', password);
  await page.click('button[type="submit"]');
}

export async function openAdminHarness(
  o: {
    env?: Record<string, string>;
    worker?: boolean;
    viewport?: { width: number; height: number };
    /** Objects the fake VirusTotal serves; no fake is started without it. */
    virustotal?: Record<string, unknown>;
  } = {},
): Promise<AdminHarness> {
  const vt = o.virustotal ? await startFakeVirusTotal(o.virustotal) : undefined;
  const db = await freshDatabase("sqlite");
  const server = await startIntelServer({
    databaseUrl: db.url,
    worker: o.worker,
    env: {
      INTEL_VENDOR_RETRIES: "0",
      ...(vt ? { INTEL_VENDOR_URL_VIRUSTOTAL: vt.url } : {}),
      ...o.env,
    },
  });
  const panel = `${server.url}/${server.services.adminPath}`;
  await createUser(server.services.store.db, ADMIN.username, ADMIN.password, true);
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: o.viewport ?? { width: 1280, height: 900 } });
  const page = await context.newPage();
  // Confirmations of dangerous buttons are accepted, on every page of the context.
  context.on("page", (p) => p.on("dialog", (d) => d.accept()));
  page.on("dialog", (d) => d.accept());
  await logIn(page, panel, ADMIN.username, ADMIN.password);
  await page.waitForURL(/\/investigate$/);
  return {
    server,
    browser,
    page,
    panel,
    vt,
    close: async () => {
      await browser.close();
      await server.close();
      await vt?.close();
      await db.drop();
    },
  };
}
