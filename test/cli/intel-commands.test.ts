/**
 * `./loupe intel user|token|credentials` as an operator runs them, in a real process on a real
 * SQLite file: secrets read from stdin or a file and refused on argv, placeholders refused, users
 * listed, keys listed and revoked, credentials tested by one call to a fake VirusTotal on loopback.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type FakeVendor, startFakeVirusTotal, VT_KEY } from "../helpers/fake-virustotal.ts";
import { runLoupe } from "../helpers/run-loupe.ts";

describe("./loupe intel user, token and credentials", () => {
  let dir: string;
  let vt: FakeVendor;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "loupe-intel-cli-"));
    vt = await startFakeVirusTotal();
  });
  after(async () => {
    await vt?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const env = () => ({
    DATA_DIR: dir,
    DATABASE_URL: `sqlite:${dir}/intel.db`,
    INTEL_CONNECTORS: "hashlookup,virustotal,misp",
    INTEL_VENDOR_URL_VIRUSTOTAL: vt.url,
    INTEL_VENDOR_RETRIES: "0",
  });
  const loupe = (args: string[], input?: string) => runLoupe(["intel", ...args], env(), 60_000, input);

  it("lists users, and lists and revokes their keys", async () => {
    assert.equal((await loupe(["user", "create", "--username", "colander"])).code, 0);
    const listed = await loupe(["user", "list"]);
    assert.match(listed.stdout, /^#\d+ colander user active keys: 0 created: /m);
    const key = (await loupe(["token", "create", "--username", "colander"])).stdout.trim();
    const keys = await loupe(["token", "list", "--username", "colander"]);
    const id = /^#(\d+) (\S+)… active/m.exec(keys.stdout);
    assert.ok(id, keys.stdout);
    assert.ok(key.startsWith(id[2] as string), "the prefix shown is the key's");
    assert.match((await loupe(["user", "list"])).stdout, /colander user active keys: 1/);
    const revoked = await loupe(["token", "revoke", "--username", "colander", id[1] as string]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match((await loupe(["token", "list", "--username", "colander"])).stdout, /revoked/);
    const again = await loupe(["token", "revoke", "--username", "nobody", "1"]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /No user "nobody"/);
    assert.equal((await loupe(["token", "revoke", "--username", "colander", "x"])).code, 2);
  });

  it("refuses a secret on argv and placeholders, on stdin and from a file", async () => {
    const onArgv = await loupe(["credentials", "set", "virustotal", `api_key=${VT_KEY}`]);
    assert.equal(onArgv.code, 2);
    assert.match(onArgv.stderr, /api_key is a secret: give it on stdin or with --from-file/);
    // Every placeholder shape is proved on the service (test/intel/services); here, the CLI's door.
    for (const line of ["api_key=YOUR_VT_KEY", "<key>"]) {
      const r = await loupe(["credentials", "set", "virustotal"], `${line}\n`);
      assert.equal(r.code, 2, line);
      assert.match(r.stderr, /is a placeholder, not a key/, line);
    }
    const file = path.join(dir, "placeholder.env");
    await writeFile(file, "# from the README\napi_key=YOUR_VT_KEY\n");
    assert.equal((await loupe(["credentials", "set", "virustotal", "--from-file", file])).code, 2);
    const typo = await loupe(["credentials", "set", "virustotal"], `apikey=${VT_KEY}\n`);
    assert.match(typo.stderr, /expected field=value lines \(VirusTotal takes api_key\)/);
    assert.equal((await loupe(["credentials", "list"])).stdout, "", "nothing was stored");
  });

  it("reads a key from stdin or a file, a url on argv, and tests each set with one call", async () => {
    const fromStdin = await loupe(["credentials", "set", "virustotal"], `${VT_KEY}\n`);
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const file = path.join(dir, "vt.env");
    await writeFile(file, "api_key=a-key-the-vendor-refuses\n");
    assert.equal((await loupe(["credentials", "set", "virustotal", "--from-file", file])).code, 0);
    const misp = await loupe(
      ["credentials", "set", "misp", "url=https://misp.example.org"],
      "api_key=misp-k3y\n",
    );
    assert.equal(misp.code, 0, misp.stderr);
    const listed = (await loupe(["credentials", "list"])).stdout;
    assert.match(listed, /virustotal \{"api_key":"fake…"\}/);
    assert.match(listed, /misp \{"url":"https:\/\/misp.example.org","api_key":"misp…"\}/);
    assert.doesNotMatch(listed, new RegExp(VT_KEY));

    const calls = vt.calls.length;
    const tested = await loupe(["credentials", "test", "virustotal"]);
    assert.equal(tested.code, 1, "one of the two sets is refused");
    assert.match(tested.stdout, /^#1 VirusTotal test passed in \d+ ms/m);
    assert.match(tested.stdout, /^#2 VirusTotal test failed in \d+ ms/m);
    assert.equal(vt.calls.length, calls + 2, "one call per set");
    const one = await loupe(["credentials", "test", "1"]);
    assert.equal(one.code, 0, one.stdout + one.stderr);
    assert.equal((await loupe(["credentials", "test", "99"])).code, 2);
    assert.equal((await loupe(["credentials", "test", "nosuchvendor"])).code, 2);
  });
});
