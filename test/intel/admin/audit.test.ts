/**
 * The audit log: every change made in the panel to users, keys and credentials is recorded with
 * who and when (SQLite and PostgreSQL), shown on its own page, and exported as CSV and JSON.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { auditCsv, auditPage, recordAudit } from "../../../src/intel/services/audit.ts";
import { screenshot } from "../../helpers/browser.ts";
import { describeOnEachDatabase } from "../../helpers/databases.ts";
import { VT_KEY } from "../../helpers/fake-virustotal.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { ADMIN, type AdminHarness, openAdminHarness } from "./harness.ts";

describeOnEachDatabase(
  (kind) => `audit log store (${kind})`,
  (db) => {
    it("keeps entries newest first, pages and filters them", async () => {
      const server = await db.startIntelServer({ worker: false });
      await recordAudit(server.services, "alice", "user.create", "bob", "user");
      await recordAudit(server.services, "alice", "credentials.add", "virustotal", "set #1");
      await recordAudit(server.services, "alice", "key.create", "bob", "key 0123abcd…");
      const all = await auditPage(server.services, { limit: 10, offset: 0 });
      assert.equal(all.total, 3);
      assert.deepEqual(
        all.entries.map((e) => e.action),
        ["key.create", "credentials.add", "user.create"],
      );
      const users = await auditPage(server.services, { limit: 10, offset: 0, action: "user" });
      assert.deepEqual(
        users.entries.map((e) => e.target),
        ["bob"],
      );
      assert.equal(
        (await auditPage(server.services, { limit: 1, offset: 1 })).entries[0]?.action,
        "credentials.add",
      );
    });
  },
);

it("writes CSV a spreadsheet cannot run", () => {
  const csv = auditCsv([
    {
      id: 1,
      at: "2026-11-23T10:00:00.000Z",
      actor: "a",
      action: "user.create",
      target: "=cmd()",
      detail: 'say "hi", x',
    },
  ]);
  assert.equal(
    csv,
    `id,at,actor,action,target,detail\r\n1,2026-11-23T10:00:00.000Z,a,user.create,'=cmd(),"say ""hi"", x"\r\n`,
  );
});

describe("audit log in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let h: AdminHarness;
  let page: Page;
  let panel: string;

  before(async () => {
    h = await openAdminHarness({ worker: false, virustotal: {} });
    ({ page, panel } = h);
  });
  after(async () => h?.close());

  it("records every change of users, keys and credentials, shows them and exports them", async () => {
    await page.goto(`${panel}/users`);
    await page.fill('form[action$="/users"] input[name="username"]', "new-analyst");
    await page.click('form[action$="/users"] button[type="submit"]');
    await page.goto(`${panel}/users`);
    const row = () => page.locator("tr", { hasText: "new-analyst" });
    await row().locator('button:has-text("Deactivate")').click();
    await row().locator('button:has-text("Reactivate")').click();
    await row().locator("a", { hasText: "API keys" }).click();
    await page.click('button:has-text("Generate a new key")');
    const key = (await page.textContent("#new-key"))?.trim() ?? "";
    await page.click("a:has-text('Back to new-analyst')");
    await page
      .locator("tr", { hasText: key.slice(0, 8) })
      .locator('button:has-text("Revoke")')
      .click();
    await page.goto(`${panel}/credentials`);
    const card = page.locator("#vendor-virustotal");
    await card.locator('input[name="api_key"]').fill(VT_KEY);
    await card.locator('button:has-text("Add credentials")').click();
    await page.locator("#vendor-virustotal").locator('button:has-text("Test")').click();
    await page.locator("#vendor-virustotal").locator('button:has-text("Remove")').click();

    await page.click('nav a:has-text("Audit log")');
    const rows = await page.locator("table.audit tbody tr").allTextContents();
    const expected = [
      /credentials\.remove\s*virustotal\s*set #\d+/,
      /credentials\.test\s*virustotal\s*set #\d+ passed/,
      /credentials\.add\s*virustotal\s*set #\d+/,
      /key\.revoke\s*new-analyst/,
      new RegExp(`key\\.create\\s*new-analyst\\s*key ${key.slice(0, 8)}`),
      /user\.reactivate\s*new-analyst/,
      /user\.deactivate\s*new-analyst/,
      /user\.create\s*new-analyst\s*user/,
    ];
    assert.equal(rows.length, expected.length, rows.join("\n"));
    expected.forEach((re, i) => {
      assert.match(rows[i]!, re);
      assert.match(rows[i]!, new RegExp(ADMIN.username));
    });
    assert.doesNotMatch(await page.content(), new RegExp(`${VT_KEY}|${key}`), "no secret in the log");
    await screenshot(page, "audit-log");

    await page.selectOption('select[name="action"]', "credentials");
    await page.click('button:has-text("Filter")');
    assert.equal(await page.locator("table.audit tbody tr").count(), 3);

    const csv = await page.request.get(`${panel}/audit/export?format=csv`);
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()["content-type"] ?? "", /^text\/csv/);
    assert.match(csv.headers()["content-disposition"] ?? "", /attachment; filename="loupe-audit-.*\.csv"/);
    const lines = (await csv.text()).trim().split("\r\n");
    assert.equal(lines[0], "id,at,actor,action,target,detail");
    assert.equal(lines.length, 1 + expected.length);
    const json = (await (await page.request.get(`${panel}/audit/export?format=json`)).json()) as Array<{
      actor: string;
      action: string;
    }>;
    assert.equal(json.length, expected.length);
    assert.equal(json.at(-1)?.action, "user.create");
    assert.equal((await page.request.get(`${panel}/audit/export?format=xml`)).status(), 400);
  });
});
