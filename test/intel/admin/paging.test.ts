/**
 * Users, Requests and Entities page on the server in Chromium: 50 rows a page, "Next" only when
 * there is more, search and sort kept across pages, LIKE wildcards searched as text, a hostile
 * search shown as text, and a bad page or sort refused with a 400.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { createUser } from "../../../src/intel/store/accounts.ts";
import { upsertEntity } from "../../../src/intel/store/graph.ts";
import { screenshot } from "../../helpers/browser.ts";
import { skipUnlessCommands } from "../../helpers/requires.ts";
import { type AdminHarness, openAdminHarness } from "./harness.ts";

const HOSTILE = `"><script>alert(1)</script>`;

async function rowsShown(page: Page, table = "main table tbody tr"): Promise<string[]> {
  return (await page.locator(table).allTextContents()).map((t) => t.trim());
}

describe("paging, sorting and search in Chromium", { skip: skipUnlessCommands("chromium") }, () => {
  let h: AdminHarness;
  let page: Page;
  const dialogs: string[] = [];

  before(async () => {
    h = await openAdminHarness({ worker: false });
    page = h.page;
    page.on("dialog", (d) => dialogs.push(d.message()));
    const { db } = h.server.services.store;
    for (let i = 0; i < 55; i++)
      await createUser(db, `user-${String(i).padStart(2, "0")}`, "password-long", false);
    for (let i = 0; i < 120; i++)
      await upsertEntity(
        db,
        { superType: "OBSERVABLE", type: "DOMAIN", name: `host-${String(i).padStart(3, "0")}.example` },
        "test",
      );
    await upsertEntity(db, { superType: "OBSERVABLE", type: "DOMAIN", name: "100%_sure.example" }, "test");
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    for (let i = 0; i < 60; i++)
      await db
        .insertInto("requests")
        .values({
          id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
          super_type: "OBSERVABLE",
          type: "DOMAIN",
          value: `asked-${String(i).padStart(2, "0")}.example`,
          subject_key: `OBSERVABLE/DOMAIN/asked-${i}.example`,
          force: 0,
          status: i % 2 ? "SUCCEEDED" : "FAILED",
          vendors: "{}",
          error: null,
          created_at: at(i),
          started_at: at(i),
          finished_at: at(i),
        })
        .execute();
  });
  after(async () => h?.close());

  it("pages Users by 50, and keeps the search and the sort on the next page", async () => {
    await page.goto(`${h.panel}/users`);
    assert.equal((await rowsShown(page)).length, 50);
    await page.click('a[rel="next"]');
    assert.match(page.url(), /page=2/);
    assert.equal((await rowsShown(page)).length, 7, "55 users, the admin and the test server's API user");
    assert.equal(await page.locator('a[rel="next"]').count(), 0);

    await page.goto(`${h.panel}/users?sort=newest`);
    assert.match((await rowsShown(page))[0] ?? "", /^user-54/);
    await page.fill('input[name="q"]', "USER-5");
    await page.click('form.filters button[type="submit"]');
    const found = await rowsShown(page);
    assert.deepEqual(
      found.map((r) => r.split(/\s/)[0]),
      ["user-54", "user-53", "user-52", "user-51", "user-50"],
      "search is case-insensitive and the sort stays",
    );
    assert.equal(await page.locator('select[name="sort"]').inputValue(), "newest");
    await screenshot(page, "paging-users");
  });

  it("pages Entities sorted by name, and searches % and _ as text", async () => {
    await page.goto(`${h.panel}/entities?sort=name&q=host-`);
    const first = await rowsShown(page);
    assert.equal(first.length, 50);
    assert.match(first[0] ?? "", /^host-000\.example/);
    await page.click('a[rel="next"]');
    await page.click('a[rel="next"]');
    const third = await rowsShown(page);
    assert.equal(third.length, 20);
    assert.match(third[0] ?? "", /^host-100\.example/);
    assert.match(
      page.url(),
      /q=host-.*sort=name.*page=3|sort=name.*q=host-.*page=3|q=host-&sort=name&page=3/,
    );
    await page.click('a[rel="prev"]');
    assert.match((await rowsShown(page))[0] ?? "", /^host-050\.example/);

    await page.goto(`${h.panel}/entities?q=${encodeURIComponent("%_")}`);
    assert.deepEqual(await rowsShown(page, "main table tbody td:first-child"), ["100%_sure.example"]);
  });

  it("pages Requests, filters them by value and status, sorts the oldest first", async () => {
    await page.goto(`${h.panel}/requests`);
    assert.equal((await rowsShown(page, "table.requests tbody tr")).length, 50);
    assert.match((await rowsShown(page, "table.requests tbody tr"))[0] ?? "", /asked-59/);
    await page.goto(`${h.panel}/requests?sort=oldest&status=SUCCEEDED`);
    const rows = await rowsShown(page, "table.requests tbody tr");
    assert.equal(rows.length, 30);
    assert.match(rows[0] ?? "", /asked-01/);
    assert.equal(await page.locator('a[rel="next"]').count(), 0);
    await page.goto(`${h.panel}/requests?q=asked-1`);
    assert.equal((await rowsShown(page, "table.requests tbody tr")).length, 10);
  });

  it("shows a hostile search as text and refuses a bad page or sort with a 400", async () => {
    for (const list of ["users", "entities", "requests"]) {
      await page.goto(`${h.panel}/${list}?q=${encodeURIComponent(HOSTILE)}`);
      assert.equal(await page.locator('input[name="q"]').inputValue(), HOSTILE);
      assert.equal(await page.locator("main script").count(), 0);
      for (const bad of ["page=0", "page=abc", "sort=drop%20table", "page=100001"]) {
        const res = await page.request.get(`${h.panel}/${list}?${bad}`);
        assert.equal(res.status(), 400, `${list}?${bad}`);
      }
    }
    assert.deepEqual(dialogs, []);
    const width = await page.evaluate("document.documentElement.scrollWidth");
    assert.ok(Number(width) <= 1280);
  });
});
