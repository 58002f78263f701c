/**
 * Oracle: on rules and files generated here, Loupe's YARA-X matches (rule names, string
 * identifiers, offsets, lengths) equal those of Debian's `yara` CLI.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

const RULES = String.raw`
import "math"

rule text_plain : family_a { meta: description = "plain text" strings: $a = "malware" condition: $a }
rule hex_jumps { strings: $h = { 4D 5A ?? ?? [2-4] 50 45 } $h2 = { 6C 6F [1] 75 70 } condition: any of them }
rule regexes { strings: $r = /https?:\/\/[a-z0-9.]+\/[a-z]+/ $r2 = /ab[0-9]{2,3}cd/ condition: any of them }
rule case_and_width { strings: $n = "SpyWare" nocase $w = "secret" wide $wa = "token" wide ascii condition: any of them }
rule fullword_and_xor { strings: $f = "key" fullword $x = "evil" xor(1-3) condition: any of them }
rule counts { strings: $a = "malware" condition: #a >= 2 }
rule at_offset { strings: $mz = "MZ" condition: $mz at 0 }
rule in_range { strings: $a = "malware" condition: $a in (0..64) }
rule first_offset { strings: $a = "malware" condition: @a[1] < 100 }
rule small_file : size { condition: filesize < 1KB }
rule entropy { condition: math.entropy(0, filesize) > 7.0 }
rule meta_only : tagged another { meta: author = "loupe" weight = 3 condition: filesize > 0 }
`;

/** Private rules gate others but are never reported; global rules gate every rule of the file. */
const PRIVATE_GLOBAL_RULES = `
private rule has_mz { strings: $mz = "MZ" condition: $mz at 0 }
private rule mentions_malware { strings: $m = "malware" condition: $m }
global rule not_empty { condition: filesize > 0 }
global private rule under_100k { condition: filesize < 100KB }
rule pe_like { strings: $pe = "PE" condition: has_mz and $pe }
rule talks_of_malware { condition: mentions_malware }
rule plain { strings: $k = "key" condition: $k }
rule anything { condition: true }
`;

function xorBytes(text: string, key: number): Buffer {
  return Buffer.from([...Buffer.from(text)].map((b) => b ^ key));
}

function corpus(): Record<string, Buffer> {
  let seed = 1234;
  const random = (n: number) =>
    Buffer.from(
      Array.from({ length: n }, () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed & 0xff;
      }),
    );
  return {
    "text.txt": Buffer.from(
      "some malware here, and more malware. See http://evil.example/path ab123cd SPYWARE key keys",
    ),
    "pe.bin": Buffer.concat([Buffer.from("MZ\x90\x00\x03\x00\x00PE\x00\x00lo\x00up", "latin1"), random(300)]),
    "wide.bin": Buffer.concat([Buffer.from("secret token", "utf16le"), Buffer.from(" token ")]),
    "xor.bin": Buffer.concat([random(50), xorBytes("evil", 2), random(50), Buffer.from("malware")]),
    "random.bin": random(200_000),
    "empty.bin": Buffer.alloc(0),
  };
}

type Hit = string;

function cliHits(rulesPath: string, filePath: string): Set<Hit> {
  const out = execFileSync("yara", ["-s", "-L", "-w", rulesPath, filePath], { encoding: "latin1" });
  const hits = new Set<Hit>();
  let rule = "";
  for (const line of out.split("\n")) {
    const header = /^(\S+) /.exec(line);
    const str = /^0x([0-9a-f]+):(\d+):(\$\w+):/.exec(line);
    if (str) hits.add(`${rule} ${str[3]} @${Number.parseInt(str[1]!, 16)}+${str[2]}`);
    else if (header && !line.startsWith("0x")) {
      rule = header[1]!;
      hits.add(rule);
    }
  }
  return hits;
}

function loupeHits(body: Json): Set<Hit> {
  const hits = new Set<Hit>();
  for (const m of body.processors.rulematch.analysis.matches) {
    hits.add(m.rule);
    for (const s of m.strings)
      for (const i of s.instances) hits.add(`${m.rule} ${s.identifier} @${i.offset}+${i.matched_length}`);
  }
  return hits;
}

describe("YARA-X matches equal the yara CLI's", { skip: skipUnlessCommands("yara") }, () => {
  let server: TestFilesServer;
  let dir: string;
  before(async () => {
    server = await startFilesServer({ RULE_MAX_MATCHES_PER_STRING: "100000" });
    dir = await mkdtemp(path.join(os.tmpdir(), "loupe-oracle-"));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function compare(rules: string, name: string, bytes: Buffer): Promise<Set<Hit>> {
    const rulesPath = path.join(dir, "rules.yar");
    const filePath = path.join(dir, name);
    await writeFile(rulesPath, rules);
    await writeFile(filePath, bytes);
    const expected = cliHits(rulesPath, filePath);
    const res = await postFile(`${server.url}/analyzer/rulematch`, bytes, name, { rules });
    assert.equal(res.status, 200);
    const actual = loupeHits(await json(res));
    assert.deepEqual([...actual].sort(), [...expected].sort());
    return expected;
  }

  for (const [name, bytes] of Object.entries(corpus())) {
    it(`on ${name}`, async () => {
      const expected = await compare(RULES, name, bytes);
      assert.ok(
        expected.size > 0 || name === "empty.bin" || name === "random.bin",
        "the corpus exercises rules",
      );
    });
    it(`on ${name}, with private and global rules`, async () => {
      const expected = await compare(PRIVATE_GLOBAL_RULES, name, bytes);
      for (const hidden of ["has_mz", "mentions_malware", "under_100k"]) assert.ok(!expected.has(hidden));
      if (name === "text.txt") assert.ok(expected.has("talks_of_malware") && expected.has("not_empty"));
      if (name === "random.bin" || name === "empty.bin")
        assert.equal(expected.size, 0, "a global rule gates");
    });
  }
});
