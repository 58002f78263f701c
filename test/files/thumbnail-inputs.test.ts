/**
 * The thumbnail converter's input formats, one table (src/files/converters/thumbnail-inputs.ts):
 * the README names exactly its rows; the refusal message is made from them, and the samples and
 * hostile seeds are keyed by them (thumbnail.test.ts, helpers/hostile.ts), so a row cannot lack either.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../../src/common/config.ts";
import { THUMBNAIL_INPUTS } from "../../src/files/converters/thumbnail-inputs.ts";

/** The formats a text lists after "PNG thumbnail … reads" (the README's quick tour), in order. */
function listedInputs(text: string): string[] {
  const m = /PNG thumbnail[^\n]*?reads ([^)\n]+)\)/.exec(text);
  return m?.[1]?.split(/,\s*/).map((s) => s.trim()) ?? [];
}

describe("thumbnail input formats", () => {
  it("the README names every format the converter reads, and no other", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8").replace(/\n#\s*/g, " ");
    assert.deepEqual(
      listedInputs(readme),
      THUMBNAIL_INPUTS.map((f) => f.name),
    );
  });

  it("reads the README's list as written (the check can fail)", () => {
    assert.deepEqual(listedInputs("a PNG thumbnail (strategies: pad; reads JPEG, PNG)"), ["JPEG", "PNG"]);
    assert.deepEqual(listedInputs("a thumbnail of anything"), []);
    assert.deepEqual(
      listedInputs("a PNG thumbnail (pad)\nit reads (JPEG)"),
      [],
      "on the thumbnail's line only",
    );
  });
});
