/**
 * The container parts that run without containers: every image compose.yaml names by default is
 * one `./loupe image build` makes (no registry is reachable where Loupe is tested), each role has
 * its Containerfile, and build.sh's engine check turns the errors podman gives on hosts like the
 * test machines into the containers.conf setting that fixes each (run against a stand-in engine).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ROOT } from "../../src/common/config.ts";

const compose = readFileSync(path.join(ROOT, "deploy/compose.yaml"), "utf8");
const work = mkdtempSync(path.join(os.tmpdir(), "loupe-images-"));
after(() => rmSync(work, { recursive: true, force: true }));

describe("the compose stack's images", () => {
  it("are all built here: every default image is localhost/, with a Containerfile for each role", () => {
    const images = [...compose.matchAll(/image: \$\{(\w+):-([^}]+)\}/g)].map((m) => m[2] ?? "");
    assert.ok(images.length >= 6, `found ${images.join(", ")}`);
    for (const image of images) assert.match(image, /^localhost\//, `${image} would need a registry`);
    const roles = new Set(images.map((i) => /^localhost\/loupe-(\w+):/.exec(i)?.[1]).filter(Boolean));
    assert.deepEqual([...roles].sort(), ["caddy", "clamav", "postgres"]);
    for (const role of roles)
      assert.ok(
        existsSync(path.join(ROOT, `deploy/image/roles/${role}.Containerfile`)),
        `${role}.Containerfile`,
      );
    assert.doesNotMatch(compose, /image: (?!\$\{)/, "every image is named by a variable with a default");
  });
});

/** Sources engine.sh and runs check_engine_runs with a stand-in engine that fails with `error`. */
function diagnose(error: string): { code: number | null; out: string } {
  const engine = path.join(work, "engine");
  writeFileSync(engine, `#!/bin/sh\necho ${JSON.stringify(error)} >&2\nexit 125\n`);
  chmodSync(engine, 0o755);
  const script = `. ${JSON.stringify(path.join(ROOT, "deploy/image/engine.sh"))}; check_engine_runs ${JSON.stringify(engine)} base`;
  const r = spawnSync("bash", ["-c", script], { encoding: "utf8" });
  return { code: r.status, out: r.stderr };
}

describe("build.sh's engine check", () => {
  it("names the ulimits setting when the engine cannot raise the file limit", () => {
    const { code, out } = diagnose("Error: crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted");
    assert.equal(code, 1);
    assert.match(out, /default_ulimits = \["nofile=\d+:\d+", "nproc=32768:32768"\]/);
  });

  it("names runc when crun refuses hybrid cgroups", () => {
    const { out } = diagnose("Error: OCI runtime error: crun: cgroups in hybrid mode not supported");
    assert.match(out, /runtime = "runc"/);
    assert.doesNotMatch(out, /default_ulimits/);
  });

  it("passes when the engine runs a container", () => {
    const engine = path.join(work, "working-engine");
    writeFileSync(engine, "#!/bin/sh\nexit 0\n");
    chmodSync(engine, 0o755);
    const script = `. ${JSON.stringify(path.join(ROOT, "deploy/image/engine.sh"))}; check_engine_runs ${JSON.stringify(engine)} base`;
    assert.equal(spawnSync("bash", ["-c", script]).status, 0);
  });
});
