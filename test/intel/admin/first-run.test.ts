/**
 * A first-time admin in Chromium: with no vendor key, Investigate and Status say no vendor is
 * configured (or only keyless ones) and link to Vendor credentials; once a key is added the hint goes.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { addCredentialSet } from "../../../src/intel/services/credentials.ts";
import { screenshot } from "../../helpers/browser.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { type AdminHarness, openAdminHarness } from "./harness.ts";

describe("first-run hints in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  const opened: AdminHarness[] = [];
  const open = async (connectors: string) => {
    const h = await openAdminHarness({ worker: false, env: { INTEL_CONNECTORS: connectors } });
    opened.push(h);
    return h;
  };
  after(async () => {
    for (const h of opened) await h.close();
  });

  it("says no vendor is configured on Investigate and Status, links to credentials, and goes once a key is added", async () => {
    const o = await open("virustotal,shodan");
    const { page } = o;
    const hint = page.locator("#vendor-hint");
    assert.match((await hint.textContent()) ?? "", /No vendor is configured\..*2 vendors/s);
    await screenshot(page, "first-run-investigate");
    await page.goto(`${o.panel}/status`);
    assert.match((await hint.textContent()) ?? "", /No vendor is configured/);
    await hint.locator("a", { hasText: "Vendor credentials" }).click();
    await page.waitForURL(/\/credentials$/);
    assert.equal((await page.textContent("h1"))?.trim(), "Vendor credentials");

    const vt = o.server.services.connectors.find((c) => c.id === "virustotal")!;
    await addCredentialSet(o.server.services, vt, { api_key: "3f9a1c7e5b2d4086".repeat(4) });
    for (const path of ["investigate", "status"]) {
      await page.goto(`${o.panel}/${path}`);
      assert.equal(await hint.count(), 0, `no hint on ${path} once a key is set`);
    }
  });

  it("says honestly when only keyless vendors can be asked", async () => {
    const { page } = await open("virustotal,hashlookup");
    const text = (await page.locator("#vendor-hint").textContent()) ?? "";
    assert.match(text, /only keyless vendors/);
    assert.match(text, /CIRCL hashlookup/);
    assert.doesNotMatch(text, /No vendor is configured\./);
  });
});
