/**
 * `--help` on every command of the CLI table prints its usage and runs nothing (no service, no
 * install, no benchmark, nothing written); a usage mistake exits 2 with one line and the usage.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { commandTable } from "../../src/cli/commands.ts";
import { runLoupe } from "../helpers/run-loupe.ts";

describe("./loupe --help", () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "loupe-help-"));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));
  const env = () => ({ DATA_DIR: dataDir, DATABASE_URL: `sqlite:${dataDir}/intel.db`, FILES_PORT: "18123" });

  it("prints each command's usage and starts nothing", async () => {
    const runs = [...commandTable().map((c) => c.words), ["analyze"], []];
    for (const words of runs) {
      for (const flag of words.length <= 1 ? ["--help", "-h"] : ["--help"]) {
        const r = await runLoupe([...words, flag], env(), 30_000);
        const shown = `./loupe ${[...words, flag].join(" ")}`;
        assert.equal(r.code, 0, `${shown}: ${r.stderr}`);
        assert.match(r.stdout, /^Usage: \.\/loupe/, shown);
        assert.doesNotMatch(r.stdout + r.stderr, /\n\s+at .+:\d+:\d+/, `${shown} printed a stack trace`);
        assert.doesNotMatch(r.stdout, /═══ bench|listening|── lint/, `${shown} started something`);
      }
    }
    assert.deepEqual(await readdir(dataDir), [], "help wrote into DATA_DIR");
  });

  it("prints the ports it is given", async () => {
    const r = await runLoupe(["--help"], { ...env(), INTEL_PORT: "39080" });
    assert.match(r.stdout, /files \(:18123\) and intel \(:39080\)/);
  });

  it("answers a usage mistake with one line and the usage, exit 2", async () => {
    for (const args of [
      ["intel", "user", "create", "--bogus"],
      ["files", "serve", "--port"],
      ["intel", "token", "create", "--username"],
    ]) {
      const r = await runLoupe(args, env(), 30_000);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, /^loupe: .+\n\nUsage: \.\/loupe/, args.join(" "));
      assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, `${args.join(" ")} printed a stack trace`);
    }
  });

  it("prints the version", async () => {
    const r = await runLoupe(["--version"], env());
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^loupe \d+\.\d+\.\d+/);
  });
});
