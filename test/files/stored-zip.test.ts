/**
 * The stored zip the antivirus batches are sent as (clamd/stored-zip.ts), read back by two other
 * readers: fflate's unzip and 7-Zip's integrity test (every CRC checked). That clamd reads every
 * member is test/files/clamd-batch.test.ts.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { unzipSync } from "fflate";
import { storedZip, ZIP_MAX_MEMBERS, type ZipMember } from "../../src/files/clamd/stored-zip.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

const members: ZipMember[] = [
  { name: "0", bytes: Buffer.from("hello\n") },
  { name: "1", bytes: Buffer.alloc(0) },
  { name: "2", bytes: Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) & 0xff)) },
  { name: "3", bytes: Buffer.from("PK\x03\x04 looks like a header inside a member", "latin1") },
];
const zip = Buffer.concat(storedZip(members));

describe("a stored zip of files already read", () => {
  it("reads back, member by member, in fflate's unzip", () => {
    const read = unzipSync(zip);
    assert.deepEqual(Object.keys(read), ["0", "1", "2", "3"]);
    for (const m of members) assert.ok(Buffer.from(read[m.name] ?? []).equals(m.bytes), m.name);
  });

  it("keeps each member's own bytes: no copy between the headers", () => {
    const parts = storedZip(members);
    for (const m of members) assert.ok(parts.includes(m.bytes), `member ${m.name} is sent as it is`);
  });

  it("refuses what it cannot say without zip64", () => {
    const many = Array.from({ length: ZIP_MAX_MEMBERS + 1 }, (_, i) => ({
      name: `${i}`,
      bytes: Buffer.alloc(0),
    }));
    assert.throws(() => storedZip(many), RangeError);
  });

  describe("7-Zip's integrity test", { skip: skipUnlessCommands("7zz") }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "loupe-stored-zip-"));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it("finds every member with its CRC right", () => {
      const file = path.join(dir, "batch.zip");
      writeFileSync(file, zip);
      const out = execFileSync("7zz", ["t", file], { encoding: "utf8" });
      assert.match(out, /Everything is Ok/);
      assert.match(out, /Files: 4/);
    });
  });
});
