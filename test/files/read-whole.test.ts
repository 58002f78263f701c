/**
 * The reused read buffer of rule scans and thumbnail processes: each call gives exactly the file's
 * bytes (never the tail of a larger file read before), and a file over the caller's bound is left
 * to be read as a path.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { readWhole } from "../../src/files/sandbox/read-whole.ts";

describe("readWhole", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "loupe-read-whole-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("gives each file's own bytes, a smaller file after a larger one included", async () => {
    const large = Buffer.alloc(200_000, 0x61);
    const small = Buffer.from("small file");
    await writeFile(path.join(dir, "large"), large);
    await writeFile(path.join(dir, "small"), small);
    assert.ok(readWhole(path.join(dir, "large")).equals(large));
    assert.ok(readWhole(path.join(dir, "small")).equals(small));
  });

  it("reads an empty file as no bytes", async () => {
    await writeFile(path.join(dir, "empty"), "");
    assert.equal(readWhole(path.join(dir, "empty")).length, 0);
  });

  it("leaves a file over the bound unread", async () => {
    await writeFile(path.join(dir, "bound"), Buffer.alloc(1025));
    assert.equal(readWhole(path.join(dir, "bound"), 1024), undefined);
    assert.equal(readWhole(path.join(dir, "bound"), 1025)?.length, 1025);
  });
});
