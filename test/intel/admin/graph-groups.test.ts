/**
 * A large result in Chromium: a domain with 150 DNS records and 50 addresses (201 entities) is
 * drawn with its entities grouped by type ("150 dns records"), within the 40-node limit plus its
 * groups; a click on a group opens it; the page never scrolls sideways.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { addCredentialSet } from "../../../src/intel/services/credentials.ts";
import { screenshot } from "../../helpers/browser.ts";
import { VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { type AdminHarness, openAdminHarness } from "./harness.ts";

const DOMAIN = "crowded.example.org";
const LIMIT = 40;

function crowdedDomain(): unknown {
  const obj = structuredClone(vtFixture("domain")) as {
    data: { id: string; attributes: Record<string, unknown> };
  };
  obj.data.id = DOMAIN;
  obj.data.attributes.last_dns_records = [
    ...Array.from({ length: 100 }, (_, i) => ({ type: "TXT", value: `v=spf${i}`, ttl: 300 })),
    ...Array.from({ length: 50 }, (_, i) => ({ type: "A", value: `198.51.100.${i + 1}`, ttl: 300 })),
  ];
  return obj;
}

describe("a large graph in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let h: AdminHarness;
  let page: Page;

  before(async () => {
    h = await openAdminHarness({ virustotal: { [`domains/${DOMAIN}`]: crowdedDomain() } });
    page = h.page;
    const { store, connectors } = h.server.services;
    await addCredentialSet({ store }, connectors[0]!, { api_key: VT_KEY });
  });
  after(async () => h?.close());

  const nodes = () => page.locator("#graph svg g.node").count();
  const groups = () => page.locator("#graph svg g.node.group").allTextContents();

  it("groups entities by type beyond 40 nodes, and opens a group on click", async () => {
    await page.goto(`${h.panel}/investigate`);
    await page.fill('input[name="value"]', DOMAIN);
    await page.click('#investigate button[type="submit"]');
    await page.waitForSelector("#graph svg g.node.group", { timeout: 30_000 });
    const entities = await page.locator("#entities tbody tr").count();
    assert.ok(entities >= 200, `${entities} entities in the result`);
    const shown = await nodes();
    const named = (await groups()).map((t) => t.trim()).sort();
    assert.ok(shown <= LIMIT + named.length, `${shown} nodes drawn`);
    assert.deepEqual(named, ["150 dns records", "50 ipv4s"]);
    assert.match((await page.textContent(".graph-note")) ?? "", /grouped by type/);
    const width = Number(await page.evaluate("document.documentElement.scrollWidth"));
    assert.ok(width <= 1280, `${width} px wide`);
    await screenshot(page, "graph-grouped");

    await page.locator("#graph svg g.node.group", { hasText: "50 ipv4s" }).click();
    await page.waitForFunction('document.querySelectorAll("#graph svg g.node").length > 50');
    assert.deepEqual(
      (await groups()).map((t) => t.trim()),
      ["150 dns records"],
    );
    assert.equal(await page.locator("#graph svg g.node.linked", { hasText: "198.51.100.7" }).count(), 1);
    await screenshot(page, "graph-group-opened");
  });
});
