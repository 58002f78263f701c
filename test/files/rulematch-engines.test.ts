/**
 * Oracle: the native engine's answers (RULES_ENGINE=native) equal the WebAssembly build's
 * (RULES_ENGINE=wasm) — whole match lists with typed meta, tags, namespaces, string order and
 * plaintexts, plus warnings — on the CLI oracle's rules and files, the compare benchmark's rule
 * files and samples, and rules with meta of every type. Health must show the native engine
 * answered, so the comparison is not WebAssembly against itself.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { ruleCases } from "../helpers/rule-cases.ts";
import { corpus, PRIVATE_GLOBAL_RULES, RULES } from "../helpers/yara-corpus.ts";

/** Meta of every type YARA-X has, escapes included; private rules, tags, counts, jumps, regexes. */
const META_RULES = String.raw`
private rule gate { strings: $g = "gate" condition: $g }
rule typed_meta : one two three {
  meta:
    count = 42
    negative = -7
    hex_int = 0x1F
    ratio = 2.5
    name = "plain text"
    quoted = "say \"hi\"\tand\\go"
    escaped = "h\x41llo\n"
    binary = "\xff\x00\x7f"
    yes = true
    no = false
  strings:
    $word = "pegasus" nocase
    $hex = { 50 4B [1-3] 04 ?? }
    $re = /ab[0-9]{2,4}c/
  condition:
    #word >= 2 and $hex and $re and filesize < 10KB
}
rule gated : g { meta: weight = 1 condition: gate and filesize > 0 }
rule one_anonymous { strings: $ = "gate" condition: all of them }
rule two_anonymous { strings: $ = "pegasus" nocase $ = "gate" condition: any of them }
rule at_start { strings: $mz = "PK" condition: $mz at 0 or #mz > 0 }
rule never { meta: skipped = true condition: false }
`;

const META_FILE = Buffer.concat([
  Buffer.from("PK\x03\x04\x05 Pegasus gate ab123c PEGASUS pegasus ", "latin1"),
  Buffer.from([0x00, 0xff, 0x50, 0x4b, 0x00, 0x03, 0x04, 0x09]),
]);

interface Answer {
  status: number;
  matches: Json;
  warnings: Json;
}

async function answer(server: TestFilesServer, rules: string, name: string, bytes: Buffer): Promise<Answer> {
  const res = await postFile(`${server.url}/analyzer/rulematch`, bytes, name, { rules });
  const body = await json(res);
  const entry = body.processors.rulematch;
  assert.equal(entry.success, true, JSON.stringify(entry.error));
  return { status: res.status, matches: entry.analysis.matches, warnings: entry.metadata.warnings };
}

/** "N scans answered natively" from health. */
async function nativeAnswers(server: TestFilesServer): Promise<number> {
  const detail: string = (await json(await fetch(`${server.url}/`))).engines.yara_native.detail;
  return Number(/(\d+) scans answered natively/.exec(detail)?.[1]);
}

// Each engine also reads the upload both ways: from a temp file (UPLOAD_MEMORY_MAX=0) and as bytes
// sent in its task (small uploads kept in memory, the default).
const VARIANTS = [
  { maxMatches: "1000", wasmMemory: "0", nativeMemory: "65536" },
  { maxMatches: "3", wasmMemory: "65536", nativeMemory: "0" },
];

for (const { maxMatches, wasmMemory, nativeMemory } of VARIANTS) {
  describe(`native YARA-X answers like the WebAssembly build (RULE_MAX_MATCHES_PER_STRING=${maxMatches}, UPLOAD_MEMORY_MAX wasm ${wasmMemory} / native ${nativeMemory})`, () => {
    let wasm: TestFilesServer;
    let native: TestFilesServer;
    before(async () => {
      const env = { YARA_WORKERS: "1", RULE_MAX_MATCHES_PER_STRING: maxMatches, RULE_PLAINTEXT_MAX: "16" };
      // One after the other: two servers booting at once on a loaded machine can miss Fastify's start timeout.
      wasm = await startFilesServer({ ...env, RULES_ENGINE: "wasm", UPLOAD_MEMORY_MAX: wasmMemory });
      native = await startFilesServer({ ...env, RULES_ENGINE: "native", UPLOAD_MEMORY_MAX: nativeMemory });
    });
    after(async () => {
      await wasm?.close();
      await native?.close();
    });

    async function same(rules: string, name: string, bytes: Buffer): Promise<Answer> {
      const [expected, actual] = await Promise.all([
        answer(wasm, rules, name, bytes),
        answer(native, rules, name, bytes),
      ]);
      assert.deepEqual(actual, expected, name);
      return expected;
    }

    it("on the CLI oracle's rules and files, private and global rules included", async () => {
      const before = await nativeAnswers(native);
      let requests = 0;
      for (const [name, bytes] of Object.entries(corpus())) {
        await same(RULES, name, bytes);
        await same(PRIVATE_GLOBAL_RULES, name, bytes);
        requests += 2;
      }
      assert.equal(
        (await nativeAnswers(native)) - before,
        requests,
        "every answer came from the native engine",
      );
    });

    it("on the compare benchmark's rule files and samples", async () => {
      const before = await nativeAnswers(native);
      let matched = 0;
      const cases = ruleCases();
      for (const c of cases) {
        const expected = await same(c.rules, `${c.name}.bin`, Buffer.from(c.sample));
        matched += (expected.matches as unknown[]).length;
      }
      assert.ok(matched > 0, "the samples match some rules");
      assert.equal((await nativeAnswers(native)) - before, cases.length);
    });

    it("with meta of every type, escapes, tags, private rules, anonymous strings and counts", async () => {
      const expected = await same(META_RULES, "meta.bin", META_FILE);
      const rules = (expected.matches as Array<{ rule: string }>).map((m) => m.rule);
      assert.deepEqual(rules, ["typed_meta", "gated", "one_anonymous", "two_anonymous", "at_start"]);
      const typed = (expected.matches as Array<{ meta: Record<string, unknown> }>)[0]?.meta;
      assert.equal(typed?.yes, true);
      assert.equal(typed?.ratio, 2.5);
      await same(META_RULES, "empty.bin", Buffer.alloc(0));
    });
  });
}
