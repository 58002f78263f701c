/**
 * A request's page in Chromium: reached from the Requests list, it shows each vendor's outcome and
 * its raw answer folded, pretty-printed, redacted of the key, with a hostile string as plain text,
 * and without sideways scroll at 375 px.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { addCredentialSet } from "../../../src/intel/services/credentials.ts";
import { screenshot } from "../../helpers/browser.ts";
import { VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import { pollUntilDone } from "../../helpers/intel-server.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { type AdminHarness, openAdminHarness } from "./harness.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const HOSTILE = `</code></pre><img src=x onerror=alert(1)><script>alert(2)</script>`;

function leakyFile(): unknown {
  const file = structuredClone(vtFixture("file")) as { data: { attributes: Record<string, unknown> } };
  file.data.attributes.comment = HOSTILE;
  file.data.attributes.echoed_key = `key: ${VT_KEY}`;
  file.data.attributes.api_key = "another-secret-value";
  return file;
}

describe("a request's page in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let h: AdminHarness;
  let page: Page;
  const dialogs: string[] = [];

  before(async () => {
    h = await openAdminHarness({ virustotal: { [`files/${MD5}`]: leakyFile() } });
    page = h.page;
    page.on("dialog", (d) => dialogs.push(d.message()));
    const { store, connectors } = h.server.services;
    await addCredentialSet({ store }, connectors[0]!, { api_key: VT_KEY });
    const done = await pollUntilDone(h.server, { super_type: "OBSERVABLE", type: "MD5", value: MD5 });
    assert.equal(done.status, 200);
  });
  after(async () => h?.close());

  it("shows each vendor's raw answer folded, redacted and as text", async () => {
    await page.goto(`${h.panel}/requests`);
    await page
      .locator("table.requests tbody tr")
      .first()
      .locator('a[title="Details and raw answers"]')
      .click();
    await page.waitForURL(/\/requests\/[0-9a-f-]{36}$/);
    assert.match((await page.textContent("h1")) ?? "", /^Request [0-9a-f]{8}$/);
    assert.match((await page.locator("main table").textContent()) ?? "", /virustotal\s*ok/);

    const raw = page.locator("details#raw-virustotal");
    assert.equal(await raw.getAttribute("open"), null, "folded until asked");
    assert.equal(await raw.locator("pre").isVisible(), false);
    await raw.locator("summary").click();
    const text = (await raw.locator("pre").textContent()) ?? "";
    assert.ok(text.includes(HOSTILE), "the hostile string is shown as it came, as text");
    assert.match(text, /\n {4}"attributes": \{/, "pretty-printed");
    assert.match(text, /"echoed_key": "key: \[redacted\]"/);
    assert.match(text, /"api_key": "\[redacted\]"/);
    const content = await page.content();
    assert.ok(
      !content.includes(VT_KEY) && !content.includes("another-secret-value"),
      "no secret in the page",
    );
    assert.equal(await page.locator("main img").count(), 0);
    assert.equal(await page.locator("main script").count(), 0);
    assert.deepEqual(dialogs, []);
    await screenshot(page, "request-raw-answer");

    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await page.locator("details#raw-virustotal summary").click();
    const width = Number(await page.evaluate("document.documentElement.scrollWidth"));
    assert.ok(width <= 375, `${width} px wide at 375 px`);
    await screenshot(page, "request-raw-answer-375");
  });

  it("answers an unknown request id with the list and a message", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${h.panel}/requests/00000000-0000-0000-0000-000000000000`);
    await page.waitForURL(/\/requests$/);
    assert.match((await page.textContent(".flash.error")) ?? "", /No such request/);
  });
});
