/** The corpus writer describes every hostile case the suites drive, and writes the small ones as they are built. */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { writeCorpus } from "./corpus.ts";
import { executableCases } from "./executable-cases.ts";
import { extractCases } from "./extract-cases.ts";
import { YARA_CASES } from "./yara-cases.ts";

describe("hostile corpus", () => {
  it("lists every YARA and extraction case with its endpoint and right answers, and writes the small ones", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-corpus-"));
    try {
      const manifest = await writeCorpus(dir);
      const entries = Object.values(manifest);
      assert.equal(entries.filter((e) => e.endpoint === "/analyzer/rulematch").length, YARA_CASES.length);
      assert.equal(
        entries.filter((e) => e.endpoint === "/analyzer/extractor").length,
        extractCases.length + executableCases.length,
      );
      assert.ok(entries.filter((e) => e.endpoint === "/converter/thumbnail").length >= 40);
      assert.ok(entries.every((e) => e.accept.length > 0));
      const first = YARA_CASES[0]!;
      const [name] = Object.entries(manifest).find(([, e]) => e.endpoint === "/analyzer/rulematch")!;
      assert.equal(await readFile(path.join(dir, name), "utf8"), first.rules);
      const written = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8"));
      assert.deepEqual(Object.keys(written), Object.keys(manifest));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
