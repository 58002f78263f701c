/**
 * E-mail detection by the header block: messages as mail servers save them (Postfix delivery
 * through Dovecot: Return-Path, Delivered-To, a Received chain, DKIM/ARC and spam-filter X- headers
 * before From) are e-mails even with an HTML body; header-looking decoys are not.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { extractOk, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";

const CRLF = "\r\n";

/** The trace and filter headers a Postfix → Dovecot delivery puts before the author's headers. */
const DELIVERY_HEADERS = [
  "Return-Path: <alerts@partner.example.net>",
  "Delivered-To: analyst@ngo.example.org",
  "Received: from mail.ngo.example.org",
  "\tby mail.ngo.example.org with LMTP",
  "\tid 3kJ0MXh2Z2bcQQAAj2Cytg",
  "\t(envelope-from <alerts@partner.example.net>)",
  "\tfor <analyst@ngo.example.org>; Tue, 10 Nov 2026 09:15:04 +0000",
  "Received: from localhost (localhost [127.0.0.1])",
  "\tby mail.ngo.example.org (Postfix) with ESMTP id 4CbQ2k1XyZz9vLq",
  "\tfor <analyst@ngo.example.org>; Tue, 10 Nov 2026 09:15:03 +0000 (UTC)",
  "X-Virus-Scanned: Debian amavisd-new at mail.ngo.example.org",
  "X-Spam-Flag: NO",
  "X-Spam-Score: -1.9",
  "X-Spam-Level:",
  "X-Spam-Status: No, score=-1.9 tagged_above=-9999 required=6.31",
  "\ttests=[BAYES_00=-1.9, DKIM_SIGNED=0.1, DKIM_VALID=-0.1, SPF_PASS=-0.001]",
  "\tautolearn=ham autolearn_force=no",
  "Received: from out-7.smtp.partner.example.net (out-7.smtp.partner.example.net [198.51.100.7])",
  "\t(using TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 (256/256 bits)",
  "\t key-exchange X25519 server-signature RSA-PSS (2048 bits) server-digest SHA256)",
  "\t(No client certificate requested)",
  "\tby mail.ngo.example.org (Postfix) with ESMTPS id 4CbQ2j6TQpz9vLn",
  "\tfor <analyst@ngo.example.org>; Tue, 10 Nov 2026 09:15:01 +0000 (UTC)",
  "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=partner.example.net;",
  "\ts=mail2026; t=1794302100; bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=;",
  "\th=From:To:Subject:Date:Message-ID;",
  "\tb=dGhpcyBpcyBub3QgYSByZWFsIHNpZ25hdHVyZSwganVzdCBpdHMgc2hhcGUgb2Ygb25l",
  "\t IGFzIGEgcmVhbCBtZXNzYWdlIGNhcnJpZXMgaXQ=",
  "ARC-Seal: i=1; a=rsa-sha256; t=1794302100; cv=none; d=partner.example.net; s=arc",
  "\tb=bm90IGEgcmVhbCBzZWFsIGVpdGhlcg==",
];

const AUTHOR_HEADERS = [
  'From: "Partner CERT" <alerts@partner.example.net>',
  "To: analyst@ngo.example.org",
  "Subject: Indicators for the October campaign",
  "Date: Tue, 10 Nov 2026 10:14:59 +0100",
  "Message-ID: <20261110091459.77a1@partner.example.net>",
  "MIME-Version: 1.0",
];

const HTML_BODY =
  "<!DOCTYPE html><html><head><title>ignored</title></head><body><p>Please find the <b>indicators</b> attached.</p></body></html>";

/** multipart/mixed: an HTML body, and a CSV of indicators attached. */
function savedMessage(leading: string[]): string {
  const b = "----=_Part_1187_20261110";
  const csv = Buffer.from("indicator,type\nbad.example.com,domain\n198.51.100.66,ipv4\n").toString("base64");
  return [
    ...leading,
    ...AUTHOR_HEADERS,
    `Content-Type: multipart/mixed; boundary="${b}"`,
    "",
    `--${b}`,
    "Content-Type: text/html; charset=utf-8",
    "Content-Transfer-Encoding: 7bit",
    "",
    HTML_BODY,
    `--${b}`,
    'Content-Type: text/csv; name="iocs.csv"',
    'Content-Disposition: attachment; filename="iocs.csv"',
    "Content-Transfer-Encoding: base64",
    "",
    csv,
    `--${b}--`,
    "",
  ].join(CRLF);
}

describe("e-mail detection by the header block", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  const assertMessage = async (eml: string, name: string) => {
    const { analysis, content } = await extractOk(server, eml, name);
    assert.equal(analysis.type, "message/rfc822", name);
    assert.equal(analysis.title, "Indicators for the October campaign");
    assert.equal(analysis.created, "2026-11-10T09:14:59.000Z");
    assert.equal(analysis.extra.mail.from, '"Partner CERT" <alerts@partner.example.net>');
    assert.equal(analysis.extra.mail.attachment_count, 1);
    assert.equal(analysis.extra.mail.attachments[0].filename, "iocs.csv");
    assert.match(content, /Please find the indicators attached\./);
    assert.match(content, /bad\.example\.com,domain/, "the attachment's text");
    return analysis;
  };

  it("as Dovecot stores it (maildir): Return-Path, Delivered-To, Received chain, X- headers, HTML body", async () => {
    const analysis = await assertMessage(savedMessage(DELIVERY_HEADERS), "1794302104.M1P2.mail:2,S");
    assert.equal(analysis.extra.mail.received.length, 3);
  });

  it("starting with Delivered-To and spam-filter X- headers", async () => {
    const leading = DELIVERY_HEADERS.filter((l) => !l.startsWith("Return-Path"));
    leading.unshift(leading.splice(leading.indexOf("X-Spam-Flag: NO"), 1)[0]!);
    await assertMessage(savedMessage(leading), "message");
  });

  it("with a long block of X- headers before From (past the first kilobytes)", async () => {
    const filters = Array.from({ length: 60 }, (_, i) => `X-Filter-${i}: pass; rule=${"r".repeat(40)}`);
    await assertMessage(savedMessage(["X-Original-To: analyst@ngo.example.org", ...filters]), "long");
  });

  it("in an mbox, after the envelope 'From ' line", async () => {
    const mbox = `From alerts@partner.example.net Tue Nov 10 09:15:04 2026${CRLF}${savedMessage(DELIVERY_HEADERS)}`;
    await assertMessage(mbox, "Inbox");
  });

  it("with LF line ends (as saved on Unix)", async () => {
    await assertMessage(savedMessage(DELIVERY_HEADERS).replaceAll(CRLF, "\n"), "mail.eml");
  });

  describe("decoys stay what they are", () => {
    it("an HTTP response dump with its headers is HTML-bearing text, not mail", async () => {
      const dump = [
        "HTTP/1.1 200 OK",
        "Date: Tue, 10 Nov 2026 09:15:00 GMT",
        "Server: nginx",
        "Content-Type: text/html; charset=utf-8",
        "",
        HTML_BODY,
      ].join(CRLF);
      const { analysis } = await extractOk(server, dump, "response.txt");
      assert.equal(analysis.type, "text/html");
    });

    it("HTTP headers without a status line (Date, Server, Content-Type) are not a message", async () => {
      const dump = [
        "Date: Tue, 10 Nov 2026 09:15:00 GMT",
        "Server: nginx",
        "Content-Type: text/html; charset=utf-8",
        "Cache-Control: no-store",
        "",
        HTML_BODY,
      ].join("\n");
      const { analysis } = await extractOk(server, dump, "headers.txt");
      assert.equal(analysis.type, "text/html");
    });

    it("HTML starting with a header-like line is HTML", async () => {
      const page = `Subject: our newsletter\n${HTML_BODY}\n`;
      const { analysis, content } = await extractOk(server, page, "page.html");
      assert.equal(analysis.type, "text/html");
      assert.match(content, /Please find the indicators attached\./);
    });

    it("a note whose first line looks like a header is plain text", async () => {
      const note = "To: do list\nbuy milk\ncall the partner CERT\n";
      const { analysis } = await extractOk(server, note, "note.txt");
      assert.equal(analysis.type, "text/plain");
    });
  });
});
