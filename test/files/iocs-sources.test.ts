/**
 * Sources of indicators beyond the visible text: HTML link targets (documents and HTML e-mail
 * bodies) and e-mail header fields, through HTTP on a real files server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";

interface Found {
  kind: string;
  value: string;
  locations: Array<{ part: string; page: string | null; offset: number }>;
}

const PHISH_HTML = `<!doctype html><html><head><title>Account</title>
<meta http-equiv="refresh" content="30; url=https://session-expired.net/re">
<script src="https://cdn.kit-loader.org/k.js"></script></head>
<body><p>Your mailbox is full.</p>
<a href="https://login-microsoft0nline.com/owa?u=7">https://outlook.office.com</a>
<a href="/help">help</a> <img src="data:image/png;base64,iVBORw0KGgo=">
<form action="http://91.234.99.12/collect.php" method="post"><input name="p"></form>
<area href="mailto:drop@exfil-box.ru"></body></html>`;

const HTML_MAIL = [
  "From: IT Desk <it@helpdesk-notice.com>",
  "To: a.weber@victim-corp.de",
  "Subject: password expiry",
  "MIME-Version: 1.0",
  'Content-Type: multipart/alternative; boundary="b"',
  "",
  "--b",
  "Content-Type: text/plain; charset=utf-8",
  "",
  "Your password expires today. Keep it: click the button below.",
  "--b",
  "Content-Type: text/html; charset=utf-8",
  "",
  '<p>Your password expires today. <a href="https://keep-password.helpdesk-renew.com/k?id=5">Keep my password</a></p>',
  "--b--",
  "",
].join("\r\n");

describe("indicator sources beyond the visible text", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  async function analyse(bytes: string, name: string) {
    const res = await postFile(`${server.url}/analyzer/iocs`, bytes, name);
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.processors.iocs.analysis.indicators as Found[];
  }

  it("HTML link targets: href, src, action, refresh; relative and data: targets left out", async () => {
    const res = await postFile(`${server.url}/analyzer/extractor`, PHISH_HTML, "page.html");
    const body = await json(res);
    assert.equal(res.status, 200);
    assert.deepEqual(body.processors.extractor.analysis.extra.html.links, [
      "https://session-expired.net/re",
      "https://cdn.kit-loader.org/k.js",
      "https://login-microsoft0nline.com/owa?u=7",
      "http://91.234.99.12/collect.php",
      "mailto:drop@exfil-box.ru",
    ]);
    const found = await analyse(PHISH_HTML, "page.html");
    const url = found.find((i) => i.value === "https://login-microsoft0nline.com/owa?u=7");
    assert.deepEqual(
      url?.locations.map((l) => l.part),
      ["extra.html.links.2"],
    );
    // The visible text names another host than the target: both are there, each with its part.
    const shown = found.find((i) => i.value === "https://outlook.office.com");
    assert.deepEqual(
      shown?.locations.map((l) => l.part),
      ["content"],
    );
    for (const v of [
      "http://91.234.99.12/collect.php",
      "91.234.99.12",
      "drop@exfil-box.ru",
      "session-expired.net",
    ])
      assert.ok(
        found.some((i) => i.value === v),
        v,
      );
  });

  it("the link targets of an HTML e-mail body, beside its text body", async () => {
    const found = await analyse(HTML_MAIL, "expiry.eml");
    const url = found.find((i) => i.value === "https://keep-password.helpdesk-renew.com/k?id=5");
    assert.deepEqual(
      url?.locations.map((l) => l.part),
      ["extra.mail.links.0"],
    );
  });
});
