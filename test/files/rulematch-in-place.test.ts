/**
 * The in-place scan of a temp file (wasm-file-scan.ts) answers exactly what the binding's public
 * `scan(bytes)` answers, on the installed YARA-X build: same matches, offsets and match text
 * (text read back from the file, cut at the limit), a small file after a large one included.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Compiler, initSync, type Rules } from "@virustotal/yara-x";
import { toRuleMatches, type YaraXScanResult } from "../../src/files/processors/rulematch/matches.ts";
import {
  type EngineExports,
  scanFileInPlace,
  supportsInPlaceScan,
} from "../../src/files/processors/rulematch/wasm-file-scan.ts";

const engine = initSync({
  module: readFileSync(new URL("yara_x_js_bg.wasm", import.meta.resolve("@virustotal/yara-x"))),
});

const RULES = `
rule at_start { strings: $a = "HEAD-MARK" condition: $a at 0 }
rule long_text { strings: $l = /LONG-[A-Z]{40}/ condition: $l }
rule hex_jump { strings: $h = { 4D 5A [2-6] 50 45 } condition: $h }
rule many { strings: $m = "tick" condition: #m > 3 }
rule absent { strings: $x = "never-here" condition: $x }
`;
const PLAINTEXT_MAX = 16;

function sample(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 2654435761) >>> 24;
  bytes.write("HEAD-MARK", 0);
  bytes.write(`LONG-${"Q".repeat(40)}`, Math.floor(size / 3));
  Buffer.from([0x4d, 0x5a, 1, 2, 3, 0x50, 0x45]).copy(bytes, Math.floor(size / 2));
  for (let i = 0; i < 6; i++) bytes.write("tick", size - 100 + i * 10);
  return bytes;
}

describe("in-place scan of a file by the WebAssembly build", () => {
  let dir = "";
  let rules: Rules;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "loupe-in-place-"));
    const compiler = new Compiler();
    compiler.addSource(RULES);
    rules = compiler.build();
  });
  after(async () => {
    rules.free();
    await rm(dir, { recursive: true, force: true });
  });

  /** Both ways on one file: the public scan of its bytes, and the in-place scan of its path. */
  async function bothWays(name: string, bytes: Buffer) {
    const file = path.join(dir, name);
    await writeFile(file, bytes);
    const scanner = rules.scanner();
    try {
      assert.ok(
        supportsInPlaceScan(engine, scanner),
        "the installed binding has what the in-place scan calls",
      );
      const inPlace = scanFileInPlace(engine as unknown as EngineExports, scanner, file, (result, bytesAt) =>
        toRuleMatches(result as YaraXScanResult, bytesAt, PLAINTEXT_MAX),
      );
      const copied = toRuleMatches(
        scanner.scan(bytes) as YaraXScanResult,
        (offset, length) => bytes.subarray(offset, offset + length),
        PLAINTEXT_MAX,
      );
      return { inPlace, copied };
    } finally {
      scanner.free();
    }
  }

  it("answers as the public scan, on a large file then a small one", async () => {
    for (const [name, size] of [
      ["large", 3 * 1024 * 1024],
      ["small", 4096],
    ] as const) {
      const { inPlace, copied } = await bothWays(name, sample(size));
      assert.deepEqual(inPlace, copied, name);
      assert.deepEqual(
        inPlace.map((m) => m.rule).sort(),
        ["at_start", "hex_jump", "long_text", "many"],
        name,
      );
      const start = inPlace.find((m) => m.rule === "at_start");
      assert.equal(start?.strings[0]?.instances[0]?.plaintext, "HEAD-MARK", name);
      const long = inPlace.find((m) => m.rule === "long_text");
      assert.equal(long?.strings[0]?.instances[0]?.plaintext, `LONG-${"Q".repeat(11)}…`, name);
    }
  });

  it("scans an empty file as no bytes", async () => {
    const { inPlace, copied } = await bothWays("empty", Buffer.alloc(0));
    assert.deepEqual(inPlace, []);
    assert.deepEqual(copied, []);
  });
});
