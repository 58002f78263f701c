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

const TRACED_MAIL = [
  "Return-Path: <bounce-77@mta.bulk-sender-x.com>",
  "Received: from mta.bulk-sender-x.com (mta.bulk-sender-x.com [185.12.45.67])",
  "\tby mx.victim-corp.de with ESMTPS id 1; Tue, 10 Nov 2026 09:14:58 +0000",
  "Authentication-Results: mx.victim-corp.de; spf=pass smtp.mailfrom=bulk-sender-x.com;",
  " dkim=pass header.d=signer-domain.net",
  "DKIM-Signature: v=1; a=rsa-sha256; d=signer-domain.net; s=s1;",
  " b=dGhpcy5pcy5ub3QuYS5kb21haW4uY29tIGJ1dCBiYXNlNjQ=",
  "X-Originating-IP: [91.240.118.5]",
  "List-Unsubscribe: <mailto:unsub@bulk-sender-x.com>, <https://unsub.bulk-sender-x.com/u?i=9>",
  "Message-ID: <abc.123@smtp-out.bulk-sender-x.com>",
  "From: Promo <promo@bulk-sender-x.com>",
  "To: a.weber@victim-corp.de",
  "Subject: offer",
  "",
  "Hello.",
  "",
].join("\r\n");

describe("e-mail header fields as indicator sources", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  it("Return-Path, X-Originating-IP, Authentication-Results, DKIM d=, List-Unsubscribe, Message-ID host", async () => {
    const res = await postFile(`${server.url}/analyzer/iocs`, TRACED_MAIL, "promo.eml");
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    const found = body.processors.iocs.analysis.indicators as Found[];
    const partsOf = (v: string) => found.find((i) => i.value === v)?.locations.map((l) => l.part);
    assert.deepEqual(partsOf("bounce-77@mta.bulk-sender-x.com"), ["extra.mail.return_path.0"]);
    assert.deepEqual(partsOf("91.240.118.5"), ["extra.mail.x_originating_ip.0"]);
    assert.deepEqual(partsOf("signer-domain.net"), [
      "extra.mail.authentication_results.0",
      "extra.mail.dkim_domains.0",
    ]);
    assert.deepEqual(partsOf("https://unsub.bulk-sender-x.com/u?i=9"), ["extra.mail.list_unsubscribe.0"]);
    assert.deepEqual(partsOf("smtp-out.bulk-sender-x.com"), ["extra.mail.message_id_host.0"]);
    assert.ok(partsOf("185.12.45.67")?.includes("extra.mail.received.0"));
    // The DKIM signature's base64 is not read: nothing from it.
    assert.ok(!found.some((i) => /ZG9t|base64/i.test(i.value)));
  });
});
