import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { analyzeSettings } from "../../src/cli/analyze/settings.ts";
import { commonSettings, ROOT } from "../../src/common/config.ts";
import { ConfigError, type SettingsSpec } from "../../src/common/settings.ts";
import { filesSettings, readFilesConfig } from "../../src/files/config.ts";
import { intelSettings } from "../../src/intel/config.ts";

/** Every settings spec of the project; docs/configuration.md must list each variable. */
const ALL_SPECS: Record<string, SettingsSpec> = {
  common: commonSettings,
  files: filesSettings,
  intel: intelSettings,
  analyze: analyzeSettings,
};

describe("settings", () => {
  it("are all documented in docs/configuration.md with their default", () => {
    const doc = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");
    for (const [group, spec] of Object.entries(ALL_SPECS)) {
      for (const s of Object.values(spec)) {
        const row = doc.split("\n").find((line) => line.startsWith(`| \`${s.env}\``));
        assert.ok(row, `${group}: ${s.env} is missing from docs/configuration.md`);
        const expected =
          s.documentedDefault ?? (typeof s.defaultValue === "string" ? undefined : s.defaultValue);
        if (expected !== undefined) {
          assert.ok(row.includes(String(expected)), `${s.env}: the documented default is not ${expected}`);
        }
      }
    }
  });

  it("reports every bad value at once with its variable name", () => {
    assert.throws(
      () => readFilesConfig({ MAX_FILE_SIZE: "lots", FILES_PORT: "70000" }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.length === 2 &&
        err.problems.some((p) => p.startsWith("MAX_FILE_SIZE")) &&
        err.problems.some((p) => p.startsWith("FILES_PORT")),
    );
  });

  it("uses defaults for unset variables", () => {
    const c = readFilesConfig({});
    assert.equal(c.port, 8000);
    assert.equal(c.maxFileSize, 250_000_000);
  });
});
