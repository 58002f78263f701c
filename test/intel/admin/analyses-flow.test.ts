/**
 * The analyst's flow in Chromium, at 1280 and 375 px, on SQLite (the same analyses, enrichment,
 * links and history search run on both databases in test/intel/analyses/http.test.ts): a real files
 * process with a real clamd behind a real intel server, fake VirusTotal and MISP on loopback. A
 * phishing e-mail whose encrypted attachment (password in the body) holds EICAR is dropped on the
 * Analyse page; its report says malicious with the path; its indicators are enriched (a CLEAR file
 * through VirusTotal, a RED one — the default — through the own MISP only); the file's entity in
 * the graph links it to the domain; the History finds it by the attachment's sha256. No page
 * scrolls sideways. Screenshots: test-output/screenshots/analyses-<width>-<step>.png.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createToken, createUser } from "../../../src/intel/store/accounts.ts";
import { launchChromium, screenshot } from "../../helpers/browser.ts";
import { EICAR, startTestClamd } from "../../helpers/clamd.ts";
import { describeOnDatabase } from "../../helpers/databases.ts";
import { multipartEmail } from "../../helpers/documents.ts";
import { vtFixture } from "../../helpers/fake-virustotal.ts";
import { RED, solid } from "../../helpers/images.ts";
import { type MarkingVendors, startMarkingVendors } from "../../helpers/marking-vendors.ts";
import { type RealProcess, startFilesProcess } from "../../helpers/real-process.ts";
import { BIDI_NAME, MARKUP_NAME } from "../../helpers/report-samples.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { encryptedZip } from "../../helpers/sevenzip.ts";
import { storedZip } from "../../helpers/zip.ts";
import { ADMIN, assertNoSidewaysScroll, logIn, openAdminHarness } from "./harness.ts";

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
const PASSWORD = "tulip-42";
const WAIT_MS = 180_000;

/** A phishing e-mail: the password in its body, EICAR in its encrypted attachment, a link to a domain. */
async function phishingMail(domain: string) {
  const attachment = await encryptedZip({ "eicar.com": EICAR }, { password: PASSWORD, method: "zipcrypto" });
  const mail = multipartEmail({
    subject: "Overdue invoice",
    body: `Hello,\nyour invoice is attached. The password is ${PASSWORD}\nPay at hxxps://${domain}/pay today.\n`,
    attachmentName: "invoice.zip",
    attachment,
  });
  return { mail: Buffer.from(mail), attachment };
}

/** VirusTotal's answer for `domain`, from the connector's recorded one. */
function vtDomain(domain: string): unknown {
  const answer = structuredClone(vtFixture("domain")) as { data: { id: string } };
  answer.data.id = domain;
  return answer;
}

let clamd: Awaited<ReturnType<typeof startTestClamd>> | undefined;
let files: RealProcess | undefined;

describe("files analyses in the panel", { skip: skipUnlessCommands("clamd", "zip", "chromium") }, () => {
  before(async () => {
    clamd = await startTestClamd();
    files = await startFilesProcess({
      CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
      SCAN_TIMEOUT_MS: "30000",
    });
  });
  describeOnDatabase("sqlite", "on sqlite", {}, (db) => {
    const { kind } = db;
    const vtKnows: Record<string, unknown> = {};
    let stack: MarkingVendors;
    let browser: Browser;
    let dataDir: string;
    let panel: string;
    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), "loupe-panel-analyses-"));
      stack = await startMarkingVendors(db, {
        virustotal: vtKnows,
        env: { FILES_URL: files?.url ?? "", DATA_DIR: dataDir, INTEL_ANALYSIS_MAX_BYTES: "300000" },
      });
      await createUser(stack.server.services.store.db, ADMIN.username, ADMIN.password, true);
      panel = `${stack.server.url}/${stack.server.services.adminPath}`;
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await stack?.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    for (const width of [1280, 375]) {
      it(`analyses, enriches, links and finds a phishing e-mail at ${width} px`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        page.on("dialog", (d) => d.accept());
        await logIn(page, panel, ADMIN.username, ADMIN.password);
        const domain = `pay-${kind}-${width}.invoice-portal.com`;
        const clear = width === 1280;
        if (clear) vtKnows[`domains/${domain}`] = vtDomain(domain);
        const { mail, attachment } = await phishingMail(domain);
        const name = `overdue-${width}.eml`;
        await upload(page, panel, name, mail, clear);
        await checkReport(page, name, width);
        await enrich(page, stack, domain, clear, width);
        await checkGraph(page, domain, width);
        await findInHistory(page, panel, sha256(attachment), name, width);
        await page.close();
      });
    }
  });
});

async function upload(page: Page, panel: string, name: string, mail: Buffer, clear: boolean) {
  await page.goto(`${panel}/analyse`);
  await assertNoSidewaysScroll(page, "analyse");
  // The default marking is the server's: RED / RED.
  assert.equal(await page.inputValue('select[name="tlp"]'), "RED");
  await page.setInputFiles('input[type="file"]', { name, mimeType: "message/rfc822", buffer: mail });
  if (clear) {
    await page.selectOption('select[name="tlp"]', "CLEAR");
    await page.selectOption('select[name="pap"]', "CLEAR");
  }
  await screenshot(page, `analyses-${page.viewportSize()?.width}-1-analyse`);
  await page.click('#analyse button[type="submit"]');
  await page.waitForURL(/\/analyses\/[0-9a-f-]{36}$/);
  // Pending, then the page reloads with the report.
  await page.waitForSelector("#report-verdict", { timeout: WAIT_MS });
}

async function checkReport(page: Page, name: string, width: number) {
  const eicar = `${name} › invoice.zip › eicar.com`;
  assert.equal((await page.textContent(".assessment"))?.trim(), "malicious");
  const reason = page.locator("#report-verdict ul.reasons li").first();
  assert.match((await reason.textContent()) ?? "", /antivirus.*EICAR/);
  // The path opens the tree down to the node.
  await reason.locator("button.path").click();
  const node = page.locator(`details.node[data-path="${eicar}"]`);
  assert.equal(await node.getAttribute("open"), "");
  assert.match((await node.locator(".node-body").textContent()) ?? "", /antivirus: Loupe\.Test\.EICAR/);
  assert.ok(await node.isVisible());
  await assertNoSidewaysScroll(page, "report");
  await screenshot(page, `analyses-${width}-2-report`);
}

async function enrich(page: Page, stack: MarkingVendors, domain: string, clear: boolean, width: number) {
  const vtBefore = stack.vt.calls.length;
  await page.click("#enrich");
  // Until the vendors answered: the cell then reads "found" or "not found".
  const selector = `#report-indicators tr[data-type="DOMAIN"][data-value="${domain}"] .indicator-verdict`;
  await page.locator(selector, { hasText: /found/ }).waitFor({ timeout: WAIT_MS });
  const text = (await page.textContent(selector)) ?? "";
  if (clear) {
    assert.match(text, /^found/, text);
    assert.match(text, /virustotal: ok/);
    assert.ok(
      stack.vt.calls.some((c) => c.includes(domain)),
      "a CLEAR file's domain was asked of VirusTotal",
    );
  } else {
    assert.match(text, /^not found/, text);
    assert.match(text, /virustotal: skipped/);
    assert.match(text, /misp: not_found/);
    assert.ok(
      !stack.vt.calls.slice(vtBefore).some((c) => c.includes(domain)),
      "a RED file's domain never reached VirusTotal",
    );
  }
  await assertNoSidewaysScroll(page, "enriched report");
  await screenshot(page, `analyses-${width}-3-enriched`);
}

async function checkGraph(page: Page, domain: string, width: number) {
  await page.click("#graph-link");
  await page.waitForURL(/\/entities\/[^/]+$/);
  assert.match((await page.textContent("main dl.facts")) ?? "", /ARTIFACT \/ SAMPLE/);
  const link = page.getByRole("link", { name: domain, exact: true });
  assert.equal(await link.count(), 1, "the file's entity links to the domain found in it");
  await assertNoSidewaysScroll(page, "file entity");
  await screenshot(page, `analyses-${width}-4-graph`);
  // And the domain's own page links back to the file.
  await link.click();
  assert.match((await page.textContent("main")) ?? "", /contained in/);
}

async function findInHistory(page: Page, panel: string, hash: string, name: string, width: number) {
  await page.goto(`${panel}/analyses`);
  await page.fill('input[name="q"]', hash);
  await page.click('form.filters button[type="submit"]');
  await page.waitForURL(/q=/);
  const rows = page.locator("table.analyses tbody tr");
  assert.equal(await rows.count(), 1);
  assert.match(
    (await rows.first().textContent()) ?? "",
    new RegExp(`${name.replace(".", "\\.")}[\\s\\S]*malicious`),
  );
  await assertNoSidewaysScroll(page, "history");
  await screenshot(page, `analyses-${width}-5-history`);
}

describeOnDatabase(
  "sqlite",
  "hostile uploads through the panel",
  {
    skip: skipUnlessCommands("clamd", "zip", "chromium"),
  },
  (db) => {
    let stack: MarkingVendors;
    let browser: Browser;
    let page: Page;
    let dataDir: string;
    let panel: string;
    before(async () => {
      clamd ??= await startTestClamd();
      files ??= await startFilesProcess({
        CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
        SCAN_TIMEOUT_MS: "30000",
      });
      dataDir = await mkdtemp(path.join(os.tmpdir(), "loupe-panel-hostile-"));
      stack = await startMarkingVendors(db, {
        env: { FILES_URL: files.url, DATA_DIR: dataDir, INTEL_ANALYSIS_MAX_BYTES: "300000" },
      });
      await createUser(stack.server.services.store.db, ADMIN.username, ADMIN.password, true);
      panel = `${stack.server.url}/${stack.server.services.adminPath}`;
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 375, height: 900 } });
      await logIn(page, panel, ADMIN.username, ADMIN.password);
    });
    after(async () => {
      await browser?.close();
      await stack?.close();
      await rm(dataDir, { recursive: true, force: true });
      await files?.close();
      await clamd?.stop();
    });

    it("refuses a file over the limit with the limit named, in the page and at the server", async () => {
      await page.goto(`${panel}/analyse`);
      await page.setInputFiles('input[type="file"]', {
        name: "big.bin",
        mimeType: "application/octet-stream",
        buffer: Buffer.alloc(400_000),
      });
      await page.click('#analyse button[type="submit"]');
      const line = page.locator("#upload-list li.bad");
      await line.waitFor();
      assert.match(
        (await line.textContent()) ?? "",
        /big\.bin: refused — 400000 bytes is over this server's limit of 300000 bytes \(INTEL_ANALYSIS_MAX_BYTES\)/,
      );
      // A script that skips the page's check meets the server's.
      const csrf = (await page.getAttribute('meta[name="csrf-token"]', "content")) ?? "";
      const answer = await page.evaluate(
        async ({ url, csrf }) => {
          const body = new FormData();
          body.append("file", new Blob([new Uint8Array(400_000)]), "big.bin");
          const res = await fetch(url, { method: "POST", body, headers: { "x-csrf-token": csrf } });
          return { status: res.status, body: (await res.json()) as { code: string; detail: string } };
        },
        { url: `${panel}/analyses/upload`, csrf },
      );
      assert.equal(answer.status, 413);
      assert.equal(answer.body.code, "file_too_large");
      assert.match(answer.body.detail, /INTEL_ANALYSIS_MAX_BYTES/);
    });

    it("shows names with markup and bidi controls as text", async () => {
      const zip = storedZip({ [MARKUP_NAME]: "markup in a name", [BIDI_NAME]: "bidi in a name" });
      // Its slash is markup, not a folder: the whole name is kept (it was cut to "b>.zip" once).
      // No double quote: Chromium sends it as %22 in a multipart file name.
      const name = "<img src=x onerror=alert(1)><b>bold</b>.zip";
      await page.goto(`${panel}/analyse`);
      await page.setInputFiles('input[type="file"]', { name, mimeType: "application/zip", buffer: zip });
      await page.click('#analyse button[type="submit"]');
      await page.waitForURL(/\/analyses\/[0-9a-f-]{36}$/);
      await page.waitForSelector("#report-verdict", { timeout: WAIT_MS });
      assert.equal(await page.textContent("h1"), `Analysis of ${name}`);
      assert.equal(
        await page.locator("main b, main img").count(),
        0,
        "no markup from a name became an element",
      );
      assert.notEqual(await page.title(), "1");
      const names = await page.locator("#report-tree details.node > summary .name").allTextContents();
      assert.equal(names[0], name);
      assert.deepEqual(names.slice(1).sort(), [MARKUP_NAME, "invoice<U+202E>txt.exe"].sort());
      await assertNoSidewaysScroll(page, "hostile names");
      await screenshot(page, "analyses-375-hostile-names");
    });

    it("shows an image's thumbnail in its report; an administrator shares it and a regular user's key then lists it", async () => {
      const store = stack.server.services.store.db;
      const regular = await createUser(store, "regular", "regular-password", false);
      const { key } = await createToken(store, regular.id);
      const name = "red-square.png";
      const listed = async () => {
        const res = await fetch(`${stack.server.url}/api/analyses/?q=${name}`, {
          headers: { authorization: `Token ${key}` },
        });
        return ((await res.json()) as { count: number }).count;
      };
      await page.goto(`${panel}/analyse`);
      await page.setInputFiles('input[type="file"]', {
        name,
        mimeType: "image/png",
        buffer: await solid(300, 300, RED).png().toBuffer(),
      });
      await page.click('#analyse button[type="submit"]');
      await page.waitForURL(/\/analyses\/[0-9a-f-]{36}$/);
      await page.waitForSelector("#report-verdict", { timeout: WAIT_MS });
      const thumbnail = page.locator("#report img.thumbnail");
      await thumbnail.waitFor();
      // The PNG the page loaded from the panel's thumbnail route: 256 pixels a side (the default box).
      const width = await thumbnail.evaluate(async (img) => {
        const image = img as unknown as { decode(): Promise<void>; naturalWidth: number };
        await image.decode();
        return image.naturalWidth;
      });
      assert.equal(width, 256);
      assert.equal(await thumbnail.getAttribute("alt"), `Thumbnail of ${name}`);
      await screenshot(page, "analyses-375-thumbnail");
      assert.equal(await listed(), 0, "not shared yet: the regular user's key sees nothing");
      await page.click('#share-form button:has-text("Share with every user")');
      await page.waitForSelector("#analysis-shared.badge");
      assert.match((await page.textContent(".flash")) ?? "", /is shared: every user's key sees it/);
      assert.equal(await listed(), 1, "shared: the regular user's key lists it");
      await page.goto(`${panel}/analyses?q=${name}`);
      assert.equal(await page.locator("table.analyses .badge.shared").count(), 1);
      await page.goBack();
      await page.click('#share-form button:has-text("Stop sharing")');
      await page.waitForSelector("#analysis-shared.muted");
      assert.equal(await listed(), 0, "taken back");
    });

    it("draws a 1,000-node tree a page of children at a time, and opens the rest on demand", async () => {
      const notes: Record<string, string> = {};
      for (let i = 0; i < 1000; i++)
        notes[`note-${i}.txt`] = `Note ${i}: beacon to https://c2-${i}.example-bad.net/gate\n`;
      await page.goto(`${panel}/analyse`);
      await page.setInputFiles('input[type="file"]', {
        name: "flat.zip",
        mimeType: "application/zip",
        buffer: storedZip(notes),
      });
      await page.click('#analyse button[type="submit"]');
      await page.waitForURL(/\/analyses\/[0-9a-f-]{36}$/);
      await page.waitForSelector("#report-verdict", { timeout: WAIT_MS });
      assert.equal((await page.textContent("#report-tree-title .count"))?.trim(), "1001");
      const served = await page.request.get(page.url(), { headers: { "accept-encoding": "gzip" } });
      assert.equal(
        served.headers()["content-encoding"],
        "gzip",
        "the page (its 1.5 MB analysis) is sent gzipped",
      );
      // The root and its first 100 children: nothing else is in the page yet.
      assert.equal(await page.locator("details.node").count(), 101);
      assert.equal(await page.locator("details.node[open]").count(), 1);
      await page.click('#report-tree li.more button:has-text("Show 100 more of 900")');
      assert.equal(await page.locator("details.node").count(), 201);
      // A thousand URLs wait, folded, for a click.
      const urls = page.locator('details.indicator-group[data-type="URL"]');
      assert.equal(await urls.getAttribute("open"), null);
      assert.equal(await page.locator("#report-indicators tbody tr").count(), 0);
      await urls.locator("summary").click();
      // Drawn on the toggle event, which fires after the click returns.
      await urls.locator("tbody tr").first().waitFor();
      assert.equal(await urls.locator("tbody tr").count(), 100);
      await assertNoSidewaysScroll(page, "1,000-node report");
    });
  },
);

describe("the Analyse page without a files service", { skip: skipUnlessCommands("chromium") }, () => {
  it("says so, and how to set FILES_URL", async () => {
    const h = await openAdminHarness({ worker: false, env: { FILES_URL: "none" } });
    try {
      await h.page.goto(`${h.panel}/analyse`);
      assert.match(
        (await h.page.textContent("#files-hint")) ?? "",
        /No files service is configured.*FILES_URL/s,
      );
      assert.equal(await h.page.isDisabled('#analyse button[type="submit"]'), true);
    } finally {
      await h.close();
    }
  });
});
