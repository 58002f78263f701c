/**
 * The export table proves itself: every row of EXPORT_TABLE (src/intel/domain/export/index.ts) has
 * a validator that refuses what is not its format and accepts its export of the rich graph, its own
 * test file, and its place in docs/api.md. The hostile and HTTP tests loop over the same table.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../../../src/common/config.ts";
import { EXPORT_TABLE, exportDocument } from "../../../src/intel/domain/export/index.ts";
import { richDocument } from "../../helpers/export-graph.ts";
import { EXPORT_VALIDATORS } from "../../helpers/export-validators.ts";

const apiDoc = readFileSync(path.join(ROOT, "docs", "api.md"), "utf8");

describe("export format table", () => {
  it("has one row per name", () => {
    const names = EXPORT_TABLE.map((row) => row.name);
    assert.equal(new Set(names).size, names.length);
    for (const name of names) assert.match(name, /^[a-z0-9]+$/);
  });

  for (const row of EXPORT_TABLE) {
    it(`${row.name}: a validator that refuses a stranger and accepts the format's export`, () => {
      const validate = EXPORT_VALIDATORS[row.name];
      assert.ok(validate, `${row.name} has no validator in test/helpers/export-validators.ts`);
      const stranger = { not_this_format: true };
      assert.notDeepEqual(
        validate(stranger),
        [],
        `${row.name}'s validator accepts ${JSON.stringify(stranger)}`,
      );
      const exported = exportDocument(row.name, richDocument(), { vendorNames: {} });
      assert.equal(exported.contentType, row.contentType);
      assert.deepEqual(validate(JSON.parse(JSON.stringify(exported.body))), []);
    });

    it(`${row.name}: its own test file and its place in docs/api.md`, () => {
      const own = `test/intel/export/${row.name}.test.ts`;
      assert.ok(existsSync(path.join(ROOT, own)), `${own} is missing (the format's meaning, by example)`);
      assert.match(apiDoc, new RegExp(`^- \\*\\*${row.name}\\*\\* — `, "m"), "docs/api.md, Export: a bullet");
      const listed = /\?format=([a-z0-9|]+)`/.exec(apiDoc)?.[1]?.split("|") ?? [];
      assert.ok(listed.includes(row.name), `docs/api.md's ?format= line lists ${listed}`);
    });
  }
});
