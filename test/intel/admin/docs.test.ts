/**
 * docs/admin.md describes every page of the panel's navigation (a row of its Pages table) and
 * every screenshot it shows exists: a page added to the panel without its documentation fails here.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../../../src/common/config.ts";
import { NAV } from "../../../src/intel/admin/layout.ts";

const ADMIN_MD = path.join(ROOT, "docs", "admin.md");

describe("docs/admin.md", () => {
  const text = readFileSync(ADMIN_MD, "utf8");

  it("has a row for every page of the panel's navigation", () => {
    const rows = new Set([...text.matchAll(/^\| ([^|]+?) \|/gm)].map((m) => m[1]));
    const missing = NAV.map(([, name]) => name).filter((name) => !rows.has(name));
    assert.deepEqual(missing, [], `pages missing from docs/admin.md: ${missing.join(", ")}`);
  });

  it("shows only screenshots that exist", () => {
    const images = [...text.matchAll(/!\[[^\]]*\]\(([^)]+\.png)\)/g)].map((m) => m[1] as string);
    assert.ok(images.length >= 5);
    for (const image of images) assert.ok(existsSync(path.join(ROOT, "docs", image)), image);
  });
});
