import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { FuzzyHasher } from "../../src/files/fuzzy/index.ts";
import { Ssdeep } from "../../src/files/fuzzy/ssdeep.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

/** Debian's ssdeep and tlsh (tlsh-tools) are the oracles: the digests must be theirs, byte for byte. */
const debianSsdeep = (file: string) =>
  execFileSync("ssdeep", ["-s", file], { encoding: "utf8" }).trim().split("\n").at(-1)?.split(",")[0];
const debianTlsh = (file: string) =>
  execFileSync("tlsh", ["-f", file], { encoding: "utf8" }).split("\t")[0]?.trim();

describe("fuzzy hashes against Debian's ssdeep and tlsh", {
  skip: skipUnlessCommands("ssdeep", "tlsh"),
}, () => {
  let dir: string;
  let hasher: FuzzyHasher;
  const files: Record<string, string> = {};
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "loupe-fuzzy-"));
    const put = (name: string, bytes: Buffer | string) => {
      files[name] = path.join(dir, name);
      writeFileSync(files[name], bytes);
    };
    put("random-3MB.bin", randomBytes(3_000_000));
    put("random-300B.bin", randomBytes(300));
    put("tiny.txt", "abc");
    put("empty.bin", "");
    put("uniform.bin", Buffer.alloc(100_000, 0x41));
    put("prose.txt", readFileSync(path.join(import.meta.dirname, "../fixtures/iocs/report.txt")));
    put("briefing.pdf", readFileSync(path.join(import.meta.dirname, "../fixtures/iocs/briefing.pdf")));
    put("elf", readFileSync(process.execPath).subarray(0, 4_000_000));
    hasher = new FuzzyHasher({
      threads: 1,
      minThreads: 0,
      idleMs: 1000,
      timeoutMs: 60_000,
      maxBytes: 5_000_000,
    });
  });
  after(async () => {
    await hasher.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("ssdeep equals Debian's on text, PDF, binaries, random, tiny and empty files", () => {
    for (const [name, file] of Object.entries(files))
      assert.equal(new Ssdeep().update(readFileSync(file)).digest(), debianSsdeep(file), name);
  });

  it("ssdeep is the same fed in chunks of any size", () => {
    const bytes = readFileSync(files["elf"] ?? "");
    const s = new Ssdeep();
    for (let i = 0; i < bytes.length; i += 65_537) s.update(bytes.subarray(i, i + 65_537));
    assert.equal(s.digest(), debianSsdeep(files["elf"] ?? ""));
  });

  it("TLSH equals Debian's, and is null where TLSH has no digest", async () => {
    for (const name of ["random-3MB.bin", "prose.txt", "briefing.pdf", "elf"]) {
      const file = files[name] ?? "";
      const got = await hasher.hash(file, readFileSync(file).length, new AbortController().signal);
      assert.equal(got.skipped, undefined);
      assert.equal(got.skipped === undefined ? got.tlsh : "", debianTlsh(file), name);
    }
    const uniform = await hasher.hash(files["uniform.bin"] ?? "", 100_000, new AbortController().signal);
    assert.equal(uniform.skipped === undefined ? uniform.tlsh : "skipped", null);
  });

  it("skips a file over FUZZY_MAX_BYTES and one past FUZZY_TIMEOUT_MS", async () => {
    assert.deepEqual(await hasher.hash(files["elf"] ?? "", 6_000_000, new AbortController().signal), {
      skipped: "too_large",
    });
    const hurried = new FuzzyHasher({
      threads: 1,
      minThreads: 0,
      idleMs: 1000,
      timeoutMs: 20,
      maxBytes: 1e9,
    });
    try {
      const got = await hurried.hash(files["random-3MB.bin"] ?? "", 3_000_000, new AbortController().signal);
      assert.deepEqual(got, { skipped: "timeout" });
    } finally {
      await hurried.close();
    }
  });
});
