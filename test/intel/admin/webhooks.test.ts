/** The panel's webhook delivery log in Chromium: a delivered call is listed with its outcome. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addCredentials } from "../../../src/intel/store/credentials.ts";
import { screenshot } from "../../helpers/browser.ts";
import { VT_KEY, vtFixture } from "../../helpers/fake-virustotal.ts";
import { json } from "../../helpers/json.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { type Receiver, startReceiver } from "../../helpers/webhook-receiver.ts";
import { type AdminHarness, openAdminHarness } from "./harness.ts";

const MD5 = "44d88612fea8a8f36de82e1278abb02f";

describe("webhook deliveries in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let h: AdminHarness;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    h = await openAdminHarness({
      virustotal: { [`files/${MD5}`]: vtFixture("file") },
      env: { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "50" },
    });
    await addCredentials(h.server.services.store.db, "virustotal", { api_key: VT_KEY });
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  it("lists each delivery with its event, target and outcome", async () => {
    const { server, page, panel } = h;
    const put = await server.api("/api/webhook/", {
      method: "PUT",
      body: JSON.stringify({ url: `${receiver.url}/hook` }),
    });
    assert.equal(put.status, 201);
    const asked = await server.api("/api/request/", {
      method: "POST",
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value: MD5, force: true }),
    });
    const { id } = await json(asked);
    const deadline = Date.now() + 30_000;
    while (receiver.calls.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(receiver.calls.length, 1);

    await page.goto(`${panel}/investigate`);
    await page.click('nav a:has-text("Webhooks")');
    const rows = await page.locator("table.deliveries tbody tr").allTextContents();
    assert.equal(rows.length, 1);
    assert.match(rows[0] ?? "", new RegExp(`request\\.finished\\s*${id}\\s*delivered\\s*1\\s*200`));
    assert.match(rows[0] ?? "", new RegExp(`${receiver.url}/hook`));
    assert.doesNotMatch(await page.content(), /whsec_/, "no secret on the page");
    await screenshot(page, "webhook-deliveries");
  });
});
