/**
 * Two instances from one checkout, each with its own DATA_DIR and ports, share nothing: each
 * keeps its database, users and temp folder in its own place, every URL it prints names its own
 * port, and a command given only the instance's configuration file finds it again.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runLoupe } from "../helpers/run-loupe.ts";

type Row = { name: string; value: string; source: string };

describe("two instances side by side", () => {
  const dirs: string[] = [];
  const ports = [
    { files: "38101", intel: "39101" },
    { files: "38102", intel: "39102" },
  ];
  before(async () => {
    for (let i = 0; i < 2; i++) dirs.push(await mkdtemp(path.join(os.tmpdir(), `loupe-instance-${i}-`)));
  });
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  // Only what a user would set to start the instance; everything else is derived from it.
  const envOf = (i: number) => ({
    DATA_DIR: dirs[i] as string,
    FILES_PORT: ports[i]?.files as string,
    INTEL_PORT: ports[i]?.intel as string,
    DATABASE_URL: "",
    BASE_URL: "",
    FILES_TMP_DIR: "",
  });

  it("keeps each one's database, temp folder and URLs its own, found again through its file", async () => {
    for (let i = 0; i < 2; i++) {
      const init = await runLoupe(["config", "init"], envOf(i));
      assert.equal(init.code, 0, init.stderr);
      const file = path.join(dirs[i] as string, "loupe.env");
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const shown = await runLoupe(["--config", file, "config", "show", "--json"], { DATA_DIR: "" });
      const rows = new Map((JSON.parse(shown.stdout) as Row[]).map((r) => [r.name, r]));
      assert.equal(
        rows.get("INTEL_DATABASE_URL")?.value,
        `sqlite:${path.join(dirs[i] as string, "intel.db")}`,
      );
      assert.equal(rows.get("INTEL_DATABASE_URL")?.source, file);
      assert.equal(rows.get("INTEL_BASE_URL")?.value, `http://127.0.0.1:${ports[i]?.intel}`);
      assert.equal(rows.get("INTEL_URL")?.value, `http://127.0.0.1:${ports[i]?.intel}`);
      assert.equal(rows.get("FILES_URL")?.value, `http://127.0.0.1:${ports[i]?.files}`);
      assert.match(rows.get("FILES_TMP_DIR")?.value ?? "", /loupe-files-[0-9a-f]{12}$/);
      const url = await runLoupe(["intel", "admin-url", "--config", file], { DATA_DIR: "" });
      assert.equal(url.code, 0, url.stderr);
      assert.match(url.stdout, new RegExp(`^http://127\\.0\\.0\\.1:${ports[i]?.intel}/[0-9a-f]{32}/\\n$`));
    }
    const tmp = await Promise.all(dirs.map((_, i) => runLoupe(["config", "show", "--json"], envOf(i))));
    const tmpDirs = tmp.map(
      (r) => (JSON.parse(r.stdout) as Row[]).find((x) => x.name === "FILES_TMP_DIR")?.value,
    );
    assert.notEqual(tmpDirs[0], tmpDirs[1]);
  });

  it("shares no users or keys", async () => {
    const created = await runLoupe(["intel", "user", "create", "--username", "alice"], envOf(0));
    assert.equal(created.code, 0, created.stderr);
    const elsewhere = await runLoupe(["intel", "token", "create", "--username", "alice"], envOf(1));
    assert.equal(elsewhere.code, 2, "the second instance knows alice");
    const here = await runLoupe(["intel", "token", "create", "--username", "alice"], envOf(0));
    assert.equal(here.code, 0, here.stderr);
    await stat(path.join(dirs[0] as string, "intel.db"));
  });

  it("masks secrets and never writes them into the instance file", async () => {
    const env = { ...envOf(1), SECRET_KEY: "s3cr3t-value-0123456789", INTEL_API_KEY: "key-value-987" };
    const shown = await runLoupe(["config", "show"], env);
    assert.doesNotMatch(shown.stdout, /s3cr3t-value|key-value-987/);
    assert.match(shown.stdout, /INTEL_SECRET_KEY\s+\*{8}\s+\(environment as SECRET_KEY\)/);
    const init = await runLoupe(["config", "init", "--force"], env);
    assert.equal(init.code, 0, init.stderr);
    const text = await readFile(path.join(dirs[1] as string, "loupe.env"), "utf8");
    assert.doesNotMatch(text, /s3cr3t-value|key-value-987/);
    const again = await runLoupe(["config", "init"], env);
    assert.equal(again.code, 2, "init overwrote an existing file without --force");
  });
});
