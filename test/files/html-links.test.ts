import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  extractHtml,
  MAX_HTML_LINK_CHARS,
  MAX_HTML_LINKS,
} from "../../src/files/processors/extractor/formats/html.ts";

const html = (s: string) =>
  extractHtml(Buffer.from(s)).extra.html as { links?: string[]; links_truncated?: boolean };

describe("HTML link targets", () => {
  it("keeps absolute targets once, in document order, from every linking element", () => {
    const page = `<frame src="https://f.example-frames.com/"><embed src="ftp://files.dropzone.org/x">
      <object data="https://obj.badcdn.net/o.swf"></object><link href="https://style.badcdn.net/s.css">
      <a HREF="https://f.example-frames.com/">again</a><a href="javascript:location='https://js.go-here.com'">j</a>
      <iframe src="//proto-relative.host.com/f"></iframe><source src="https://media.badcdn.net/v.mp4">`;
    assert.deepEqual(html(page).links, [
      "https://f.example-frames.com/",
      "ftp://files.dropzone.org/x",
      "https://obj.badcdn.net/o.swf",
      "https://style.badcdn.net/s.css",
      "javascript:location='https://js.go-here.com'",
      "//proto-relative.host.com/f",
      "https://media.badcdn.net/v.mp4",
    ]);
  });

  it("adds nothing for a page without absolute links", () => {
    const r = html(
      `<a href="/x">x</a><a href="#top">t</a><img src="a.png"><meta http-equiv="content-type" content="text/html">`,
    );
    assert.equal(r.links, undefined);
    assert.equal(r.links_truncated, undefined);
  });

  it("caps the list and says so; drops targets longer than the cap instead of cutting them", () => {
    const many = Array.from({ length: MAX_HTML_LINKS + 5 }, (_, i) => `<a href="https://h${i}.com/">x</a>`);
    const r = html(many.join(""));
    assert.equal(r.links?.length, MAX_HTML_LINKS);
    assert.equal(r.links_truncated, true);
    const long = `<a href="https://long.com/${"a".repeat(MAX_HTML_LINK_CHARS)}">x</a><a href="https://ok-after.com/">y</a>`;
    assert.deepEqual(html(long).links, ["https://ok-after.com/"]);
  });

  it("walks nested elements without recursion", () => {
    const deep = `${"<div>".repeat(3000)}<a href="https://deep.inside.com/">x</a>`;
    assert.deepEqual(html(deep).links, ["https://deep.inside.com/"]);
  });
});
