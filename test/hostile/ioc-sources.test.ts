/**
 * Hostile HTML and e-mail for the indicator sources (link targets, header fields) against a real
 * `./loupe files serve` process: each answers 200 with a bounded result (or the extractor's
 * `timeout` entry), and the same PID keeps serving.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MAX_HEADER_VALUES } from "../../src/files/processors/extractor/formats/email-headers.ts";
import { MAX_HTML_LINKS } from "../../src/files/processors/extractor/formats/html.ts";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";

const MB = 1_000_000;
const page = (body: string) => `<!doctype html><html><body>${body}</body></html>`;

describe("hostile HTML and e-mail for the indicator sources against a real files process", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({ EXTRACT_WORKERS: "1", EXTRACT_TIMEOUT_MS: "20000" });
  });
  after(() => server.close());

  async function extract(body: string, name: string) {
    const res = await postFile(`${server.url}/analyzer/extractor`, body, name);
    const answer = await json(res);
    assert.equal(res.status, 200, JSON.stringify(answer).slice(0, 500));
    const entry = answer.processors.extractor;
    await assertSurvived(server);
    return entry;
  }

  it("1,000,000 links: at most MAX_HTML_LINKS kept, or the worker's time or memory limit", async () => {
    const links = Array.from({ length: 1_000_000 }, (_, i) => `<a href="https://h${i}.com/">x</a>`);
    const entry = await extract(page(links.join("")), "links.html");
    if (entry.success) {
      assert.equal(entry.analysis.extra.html.links.length, MAX_HTML_LINKS);
      assert.equal(entry.analysis.extra.html.links_truncated, true);
    } else assert.ok(["timeout", "resource_limit"].includes(entry.error_short), entry.error);
  });

  it("a 10 MB attribute is dropped, the next link kept", async () => {
    const pad = `<a href="https://pad.com/${"a".repeat(10 * MB)}">x</a><a href="https://after-pad.com/">y</a>`;
    const entry = await extract(page(pad), "pad.html");
    assert.equal(entry.success, true, JSON.stringify(entry).slice(0, 500));
    assert.deepEqual(entry.analysis.extra.html.links, ["https://after-pad.com/"]);
  });

  it("deeply nested tags end, with a result or the extractor's timeout", async () => {
    const entry = await extract(
      page(`${"<div><span>".repeat(100_000)}<a href="https://deep.com/">x</a>`),
      "deep.html",
    );
    assert.ok(entry.success || entry.error_short === "timeout", JSON.stringify(entry).slice(0, 500));
  });

  // Mail detection reads at most 500 header fields before an author field (formats/email.ts): 450
  // Received lines are mail and pass the header cap; 50,000 are read as text.
  for (const [count, type] of [
    [450, "message/rfc822"],
    [50_000, "text/plain"],
  ] as const) {
    it(`${count} Received headers: at most MAX_HEADER_VALUES kept`, async () => {
      const received = Array.from(
        { length: count },
        (_, i) => `Received: from h${i}.relay-chain.net ([45.1.${i % 250}.${i % 200}]) by mx.victim-corp.de`,
      );
      const head = [...received, "From: a@sender-x.com", "To: b@victim-corp.de", "Subject: s"];
      const entry = await extract([...head, "", "hi", ""].join("\r\n"), "chain.eml");
      assert.equal(entry.success, true, JSON.stringify(entry).slice(0, 500));
      assert.equal(entry.analysis.type, type);
      if (type === "message/rfc822")
        assert.equal(entry.analysis.extra.mail.received.length, MAX_HEADER_VALUES);
      assert.ok(entry.analysis.extra.iocs.indicators.length > 0);
    });
  }
});
