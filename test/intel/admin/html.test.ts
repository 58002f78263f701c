/** The panel's HTML template escapes every value it interpolates; only its own output passes as markup. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeHtml, html, jsonScript, safeHref } from "../../../src/intel/admin/html.ts";

const HOSTILE = `<img src=x onerror=alert(1)> "q" 'a' --> &amp;`;

describe("admin HTML templates", () => {
  it("escapes text and attribute values, arrays included", () => {
    const out = html`<p title="${HOSTILE}">${HOSTILE}</p><ul>${[HOSTILE, 3].map((v) => html`<li>${v}</li>`)}</ul>`;
    assert.equal(
      out.value,
      `<p title="${escapeHtml(HOSTILE)}">${escapeHtml(HOSTILE)}</p><ul><li>${escapeHtml(HOSTILE)}</li><li>3</li></ul>`,
    );
    assert.doesNotMatch(out.value, /<img|"q"|'a'/);
    assert.equal(escapeHtml(`<>&"'`), "&lt;&gt;&amp;&quot;&#39;");
  });

  it("renders nothing for null, undefined and false", () => {
    assert.equal(html`a${null}b${undefined}c${false}d`.value, "abcd");
  });

  it("keeps only http(s) links", () => {
    assert.equal(safeHref("https://example.org/x?y=1"), "https://example.org/x?y=1");
    for (const bad of [
      "javascript:alert(1)",
      "data:text/html,<b>",
      "//evil.example",
      "/relative",
      "vbscript:x",
    ]) {
      assert.equal(safeHref(bad), undefined, bad);
    }
  });

  it("embeds JSON that cannot close its script element", () => {
    const out = jsonScript("data", { name: "</script><script>alert(1)</script>" }).value;
    assert.equal(out.match(/<\/script>/g)?.length, 1);
    const inner = out.slice(out.indexOf(">") + 1, out.lastIndexOf("</script>"));
    assert.deepEqual(JSON.parse(inner), { name: "</script><script>alert(1)</script>" });
  });
});
