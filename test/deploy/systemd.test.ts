/**
 * The systemd units in deploy/systemd pass `systemd-analyze verify` with no warning at all (an
 * unknown or misspelt directive is only a warning there, so any output fails). The units name the
 * install path /opt/loupe; the copies checked here point at this checkout and this Node instead,
 * because verify insists that ExecStart's program exists.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ROOT } from "../../src/common/config.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

const UNITS = path.join(ROOT, "deploy/systemd");
const skip = skipUnlessCommands("systemd-analyze");
const work = mkdtempSync(path.join(os.tmpdir(), "loupe-units-"));
after(() => rmSync(work, { recursive: true, force: true }));

const unitNames = readdirSync(UNITS).filter((f) => /\.(service|target)$/.test(f));

/** Writes the unit with this machine's paths in place of the install path; returns its path. */
function localCopy(name: string, as = name, edit = (t: string) => t): string {
  const text = readFileSync(path.join(UNITS, name), "utf8")
    .replaceAll("/opt/loupe/.tools/node/bin/node", process.execPath)
    .replaceAll("/opt/loupe", ROOT);
  const file = path.join(work, as);
  writeFileSync(file, edit(text));
  return file;
}

function verify(file: string): { code: number | null; output: string } {
  const r = spawnSync("systemd-analyze", ["verify", "--man=no", file], { encoding: "utf8", cwd: work });
  return { code: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

describe("systemd units", { skip }, () => {
  it("are all there", () => {
    for (const unit of [
      "loupe-files.service",
      "loupe-intel.service",
      "loupe-intel-worker@.service",
      "loupe.target",
    ])
      assert.ok(unitNames.includes(unit), unit);
  });

  for (const name of unitNames) {
    it(`${name} passes systemd-analyze verify without a warning`, () => {
      // A template is verified as one of its instances, the way it runs.
      const file = localCopy(name, name.replace("@.service", "@1.service"));
      assert.deepEqual(verify(file), { code: 0, output: "" });
    });
  }

  it("would catch a misspelt directive and a program that is not installed", () => {
    const typo = localCopy("loupe-files.service", "typo.service", (t) =>
      t.replace("NoNewPrivileges=yes", "NoNewPrivilege=yes"),
    );
    assert.match(verify(typo).output, /Unknown key 'NoNewPrivilege'/);
    writeFileSync(
      path.join(work, "installed.service"),
      readFileSync(path.join(UNITS, "loupe-files.service")),
    );
    const missing = verify(path.join(work, "installed.service"));
    assert.notEqual(missing.code, 0);
    assert.match(missing.output, /\/opt\/loupe\/\.tools\/node\/bin\/node is not executable/);
  });

  it("harden every Loupe service and give it only its data folder to write", () => {
    for (const name of unitNames.filter((n) => n.startsWith("loupe-") && n !== "loupe-clamd.service")) {
      const text = readFileSync(path.join(UNITS, name), "utf8");
      for (const line of [
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "PrivateTmp=yes",
        "ReadWritePaths=/var/lib/loupe",
        "EnvironmentFile=/etc/loupe/loupe.env",
        "User=loupe",
      ])
        assert.ok(text.split("\n").includes(line), `${name} lacks ${line}`);
      assert.match(text, /^MemoryMax=\d+[GM]$/m, `${name} has no memory limit`);
    }
    assert.match(readFileSync(path.join(UNITS, "loupe-intel.service"), "utf8"), /intel serve --no-worker$/m);
  });

  it("and the environment template names only settings the docs list", () => {
    const doc = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");
    const template = readFileSync(path.join(ROOT, "deploy/loupe.env.example"), "utf8");
    const names = [...template.matchAll(/^#?\s?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1] ?? "");
    assert.ok(names.length > 10);
    for (const name of names)
      assert.ok(doc.includes(`\`${name}\``), `${name} is not in docs/configuration.md`);
  });
});
