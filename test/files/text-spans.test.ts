/**
 * Each node's own text: marks put around a child's text survive whatever its parent writes around
 * them, whitespace normalisation and a text limit cutting a mark in two; a mark without this
 * extraction's key is not one; text after a container's children is the container's.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normaliseWhitespace } from "../../src/files/processors/extractor/result.ts";
import { carrySpans, clipSpans, TextMarks } from "../../src/files/processors/extractor/text-spans.ts";
import type { TreeNode } from "../../src/files/processors/extractor/tree.ts";
import { pathsInText } from "../../src/files/processors/tree/text-paths.ts";

const node = (id: number, parent: number | null, path: string[]): TreeNode => ({
  id,
  parent,
  path,
  name: path.at(-1) as string,
  size: 1,
  type: null,
  status: "analysed",
});

const NODES = [
  node(0, null, ["box.eml"]),
  node(1, 0, ["box.eml", "pack.zip"]),
  node(2, 1, ["box.eml", "pack.zip", "a.txt"]),
];

/** What the worker does: marks out, whitespace normalised, spans carried over. */
function own(marks: TextMarks, marked: string) {
  const { text, spans } = marks.unwrap(marked);
  const content = normaliseWhitespace(text);
  return { content, spans: carrySpans(text, content, spans) };
}

describe("each node's own text", () => {
  it("places text a container writes after its children at the container", () => {
    // The zip writes a marker and, after its member, a line of its own; the mail wraps it all.
    const compose = (wrap: (id: number, text: string) => string) => {
      const pack = wrap(1, `── a.txt ──\n${wrap(2, "alpha   text\n\n\n\n")}\n  zip footer\t\t`);
      return `  mail body\n\n── attachment pack.zip ──\n${pack}\n\nmail signature`;
    };
    const marks = new TextMarks();
    const { content, spans } = own(
      marks,
      compose((id, text) => marks.wrap(id, text)),
    );
    // The marks change nothing of the text itself.
    assert.equal(content, normaliseWhitespace(compose((_, text) => text)));
    const at = pathsInText(spans, NODES);
    const where = (needle: string) => at(content.indexOf(needle));
    assert.equal(where("mail body"), "box.eml");
    assert.equal(where("── a.txt"), "box.eml › pack.zip");
    assert.equal(where("alpha"), "box.eml › pack.zip › a.txt");
    assert.equal(where("text\n"), "box.eml › pack.zip › a.txt");
    assert.equal(where("zip footer"), "box.eml › pack.zip");
    assert.equal(where("mail signature"), "box.eml");
  });

  it("takes out what a text limit left of a mark, and ends a span cut short with the text", () => {
    const marks = new TextMarks();
    const child = marks.wrap(2, "kept text and more");
    const cut = `head ${child}`.slice(0, `head ${child}`.length - 3); // the closing mark cut in two
    const { text, spans } = marks.unwrap(cut);
    assert.equal(text, "head kept text and more");
    assert.deepEqual(spans, [{ node: 2, start: 5, end: text.length }]);
    assert.deepEqual(clipSpans(spans, 9), [{ node: 2, start: 5, end: 9 }]);
  });

  it("does not take a mark forged without this extraction's key for one", () => {
    const marks = new TextMarks();
    const forged = "\uFDD000000000o2\uFDD1not a child\uFDD000000000c2\uFDD1";
    const { text, spans } = marks.unwrap(`x ${forged} ${marks.wrap(1, "real")}`);
    assert.equal(text, "x not a child real");
    assert.deepEqual(spans, [{ node: 1, start: 14, end: 18 }]);
  });

  it("leaves blank text unmarked (formats skip it) and drops a span of spaces alone", () => {
    const marks = new TextMarks();
    assert.equal(marks.wrap(1, " \n "), " \n ");
    const { content, spans } = own(marks, `a ${marks.wrap(1, "  b  ")}   c`);
    assert.equal(content, "a b c");
    assert.deepEqual(spans, [{ node: 1, start: 2, end: 3 }]);
  });
});
