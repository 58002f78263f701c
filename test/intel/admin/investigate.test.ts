/**
 * Investigate in Chromium: the type follows the value as it is typed (the selects override it),
 * and the result opens with a verdict card built from the vendors' own verdicts, with links.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { addCredentialSet } from "../../../src/intel/services/credentials.ts";
import { screenshot } from "../../helpers/browser.ts";
import { VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { type AdminHarness, openAdminHarness } from "./harness.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const ODD_MD5 = "00112233445566778899aabbccddeeff";
// Accents, quotes, brackets and a long dotted word: Mermaid once showed "&#34;" and cut words here.
const ODD = `Ünïcødé "quoted" [bracket] cdn-updates.loupe-test.net <b>&amp;`;

function oddFile(): unknown {
  const obj = structuredClone(vtFixture("file")) as { data: { attributes: Record<string, unknown> } };
  obj.data.attributes.md5 = ODD_MD5;
  obj.data.attributes.popular_threat_classification = {
    suggested_threat_label: ODD,
    popular_threat_category: [{ value: "trojan", count: 3 }],
  };
  return obj;
}

describe("Investigate in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let h: AdminHarness;
  let browser: Browser;
  let page: Page;
  let panel: string;

  before(async () => {
    h = await openAdminHarness({
      virustotal: {
        [`files/${MD5}`]: vtFixture("file"),
        "domains/example.org": vtFixture("domain"),
        [`files/${ODD_MD5}`]: oddFile(),
      },
    });
    ({ browser, page, panel } = h);
    const { store, connectors } = h.server.services;
    await addCredentialSet({ store }, connectors[0]!, { api_key: VT_KEY });
  });
  after(async () => h?.close());

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
    // The raw view: the stored document as JSON bytes, its sources filled in.
    const href = (await page.getAttribute("#raw-link", "href")) ?? "";
    const raw = await page.request.get(new URL(href, page.url()).toString());
    assert.equal(raw.status(), 200);
    assert.match(raw.headers()["content-type"] ?? "", /^application\/json/);
    const doc = await raw.json();
    assert.equal(doc.root_entity.name, "example.org");
    assert.equal(doc.sources.virustotal.status, "ok");
    assert.ok(Array.isArray(doc.entities) && typeof doc.graph === "string");
  });

  it("graph: a click on a node opens its entity; it zooms, pans and fits", async () => {
    await page.goto(`${panel}/investigate?value=${MD5}`);
    await page.waitForSelector("#graph svg g.node.linked", { timeout: 20_000 });
    const viewBox = async () => (await page.getAttribute("#graph svg", "viewBox"))!.split(" ").map(Number);
    const fitted = await viewBox();
    await page.click('.graph-controls button[title="Zoom in"]');
    const zoomed = await viewBox();
    assert.ok(zoomed[2]! < fitted[2]!, `zoom in narrows the view: ${fitted} → ${zoomed}`);
    const box = (await page.locator("#graph svg").boundingBox())!;
    await page.mouse.move(box.x + 10, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(box.x + 90, box.y + 40, { steps: 5 });
    await page.mouse.up();
    const panned = await viewBox();
    assert.ok(panned[0]! < zoomed[0]!, `dragging right moves the view left: ${zoomed} → ${panned}`);
    await page.click('.graph-controls button[title="Fit the whole graph"]');
    assert.deepEqual(await viewBox(), fitted);
    const svgWidth = (await page.locator("#graph svg").boundingBox())!.width;
    const graphWidth = (await page.locator("#graph").boundingBox())!.width;
    assert.ok(svgWidth <= graphWidth, "the drawing fits its box");
    await page.locator("#graph g.node.linked", { hasText: "eicar/test" }).click();
    await page.waitForURL(/\/entities\/[^/]+$/);
    assert.equal((await page.textContent("h1"))?.trim(), "eicar/test");
    await page.goBack();
    await page.waitForSelector("#graph svg g.node.linked", { timeout: 20_000 });
  });

  for (const width of [1280, 375]) {
    it(`graph at ${width} px: labels never show entity codes nor cut words, text stays readable`, async () => {
      const narrow = await browser.newPage({ viewport: { width, height: 800 } });
      await narrow.context().addCookies(await page.context().cookies());
      await narrow.goto(`${panel}/investigate?value=${ODD_MD5}`);
      await narrow.waitForSelector("#graph svg g.node.linked", { timeout: 20_000 });
      const texts = await narrow.locator("#graph svg text").allTextContents();
      assert.ok(
        texts.every((t) => !/&#|#\d+;/.test(t)),
        `no entity code: ${JSON.stringify(texts)}`,
      );
      const label = texts.find((t) => t.includes("cdn-updates"));
      assert.ok(label, JSON.stringify(texts));
      assert.ok(label.replace(/\s+/g, "").endsWith(ODD.replace(/\s+/g, "")), label);
      const node = narrow.locator("#graph g.node.linked", { hasText: "cdn-updates" });
      assert.match((await node.textContent()) ?? "", /cdn-updates\.loupe-test\.net/);
      // Text is drawn at 60 % of its size or more: the viewBox is never wider than the box / 0.6.
      const [, , w] = (await narrow.getAttribute("#graph svg", "viewBox"))!.split(" ").map(Number);
      const shown = (await narrow.locator("#graph svg").boundingBox())!.width;
      assert.ok(shown / w! >= 0.6 - 1e-6, `scale ${shown / w!}`);
      await screenshot(narrow, `graph-odd-labels-${width}`);
      await narrow.close();
    });
  }
});
