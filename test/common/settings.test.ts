import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { effectiveSettings } from "../../src/cli/config.ts";
import { SETTINGS_SPECS } from "../../src/cli/configuration.ts";
import { ROOT, readCommonConfig } from "../../src/common/config.ts";
import { ConfigError } from "../../src/common/settings.ts";
import { readFilesConfig } from "../../src/files/config.ts";
import { readIntelConfig } from "../../src/intel/config.ts";

const PREFIXES = ["FILES_", "INTEL_", "LOUPE_"];

describe("settings", () => {
  it("are all documented in docs/configuration.md with their aliases and default", () => {
    const doc = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");
    for (const [group, spec] of Object.entries(SETTINGS_SPECS)) {
      for (const s of Object.values(spec)) {
        assert.ok(
          PREFIXES.some((p) => s.env.startsWith(p)),
          `${s.env} has no service prefix`,
        );
        const row = doc.split("\n").find((line) => line.startsWith(`| \`${s.env}\` |`));
        assert.ok(row, `${group}: ${s.env} is missing from docs/configuration.md`);
        const aliases = (row.split("|")[2] ?? "").match(/[A-Z0-9_]+/g) ?? [];
        assert.deepEqual(aliases, [...s.aliases], `${s.env}: the documented aliases are not the code's`);
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
        err.problems.some((p) => p.startsWith("MAX_FILE_SIZE ")) &&
        err.problems.some((p) => p.startsWith("FILES_PORT")),
    );
  });

  it("documents no setting the code does not read (the per-vendor families and GLIBC_TUNABLES aside)", () => {
    const doc = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");
    const known = new Set(
      Object.values(SETTINGS_SPECS).flatMap((spec) => Object.values(spec).map((s) => s.env)),
    );
    const rows = doc.split("\n").flatMap((line) => /^\| `([A-Z0-9_]+)` \|/.exec(line)?.[1] ?? []);
    const unknown = rows.filter((name) => !known.has(name) && name !== "GLIBC_TUNABLES");
    assert.deepEqual(unknown, [], "rows for settings the code does not have");
  });

  it("reads an alias when the prefixed name is unset; the prefixed name wins over it", () => {
    assert.equal(readFilesConfig({ MAX_FILE_SIZE: "1234" }).maxFileSize, 1234);
    assert.equal(readFilesConfig({ FILES_MAX_FILE_SIZE: "99", MAX_FILE_SIZE: "1234" }).maxFileSize, 99);
    assert.equal(readCommonConfig({ LOG_LEVEL: "warn" }).logLevel, "warn");
    // Derived defaults follow an alias too: DATA_DIR moves the database, DATABASE_URL replaces it.
    assert.equal(readIntelConfig({ DATA_DIR: "/srv/x" }).databaseUrl, "sqlite:/srv/x/intel.db");
    assert.equal(readIntelConfig({ DATABASE_URL: "sqlite:/tmp/a.db" }).databaseUrl, "sqlite:/tmp/a.db");
    assert.equal(
      readIntelConfig({ DATABASE_URL: "sqlite:/tmp/a.db", INTEL_DATABASE_URL: "sqlite:/tmp/b.db" })
        .databaseUrl,
      "sqlite:/tmp/b.db",
    );
    assert.throws(
      () => readFilesConfig({ MAX_FILE_SIZE: "lots" }),
      (err: unknown) => err instanceof ConfigError && err.problems[0]?.startsWith("MAX_FILE_SIZE ") === true,
      "a bad value is reported under the name it was given by",
    );
  });

  it("shows in config show which name a value came from", () => {
    const rows = effectiveSettings({ DATA_DIR: "/srv/x", FILES_PORT: "8100" });
    const row = (name: string) => rows.find((r) => r.name === name);
    assert.deepEqual(
      { value: row("LOUPE_DATA_DIR")?.value, source: row("LOUPE_DATA_DIR")?.source },
      { value: "/srv/x", source: "environment as DATA_DIR" },
    );
    assert.equal(row("FILES_PORT")?.source, "environment");
    assert.equal(row("INTEL_DATABASE_URL")?.value, "sqlite:/srv/x/intel.db");
    assert.equal(row("INTEL_DATABASE_URL")?.source, "derived");
  });

  it("uses defaults for unset variables", () => {
    const c = readFilesConfig({});
    assert.equal(c.port, 8000);
    assert.equal(c.maxFileSize, 250_000_000);
  });
});
