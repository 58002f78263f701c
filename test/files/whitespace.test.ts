/**
 * Whitespace normalisation of extracted text: what it keeps (every tab, as a cell separator),
 * what it folds, and that a hostile run of megabytes of spaces or tabs costs linear time.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normaliseWhitespace } from "../../src/files/processors/extractor/result.ts";

describe("normaliseWhitespace", () => {
  it("keeps each tab, folds runs of spaces and blank lines, trims lines", () => {
    assert.equal(normaliseWhitespace("a  \t \t b"), "a\t\tb");
    assert.equal(normaliseWhitespace("one   two\u00a0\u00a0three"), "one two three");
    assert.equal(normaliseWhitespace("line  \t\r\n   next\r\r\r\rlast "), "line\nnext\n\nlast");
    assert.equal(normaliseWhitespace("cell\t\n\t  x"), "cell\n\tx");
    assert.equal(normaliseWhitespace("  \n\n  "), "");
  });

  it("reads megabytes of spaces, tabs and line breaks in one pass", () => {
    const hostile = `a${" ".repeat(4_000_000)}b${"\t".repeat(4_000_000)}\n${"\t ".repeat(1_000_000)}c`;
    const out = normaliseWhitespace(hostile);
    assert.ok(out.startsWith("a b\n"));
    assert.ok(out.endsWith("\tc"));
  });
});
