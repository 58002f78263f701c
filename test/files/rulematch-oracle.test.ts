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
import { corpus, PRIVATE_GLOBAL_RULES, RULES } from "../helpers/yara-corpus.ts";

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
