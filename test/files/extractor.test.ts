import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import sharp from "sharp";
import {
  multipartEmail,
  simpleDocx,
  simpleEpub,
  simpleOdt,
  simplePdf,
  taggedWav,
} from "../helpers/documents.ts";
import { extractFile, postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { storedZip } from "../helpers/zip.ts";

const EN = "The investigators found the spyware on the journalist's phone after a careful forensic analysis.";
const FR =
  "Les enquêteurs ont trouvé le logiciel espion sur le téléphone du journaliste après une analyse minutieuse.";
const DE =
  "Die Ermittler fanden die Spionagesoftware auf dem Telefon der Journalistin nach einer sorgfältigen Analyse.";

describe("POST /analyzer/extractor", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ EXTRACT_MAX_ARCHIVE_BYTES: "200000", EXTRACT_MAX_DEPTH: "2" });
  });
  after(() => server.close());

  const extract = (bytes: Uint8Array | string, name?: string) => extractFile(server, bytes, name);

  it("reads a PDF: text, title, author, creation date, page count", async () => {
    const pdf = simplePdf(EN, { title: "Field report", author: "CERT team", created: "D:20260314093000Z" });
    const { body, analysis } = await extract(pdf, "report.pdf");
    assert.equal(body.success, true);
    assert.match(body.content, /spyware on the journalist/);
    assert.equal(analysis.type, "application/pdf");
    assert.equal(analysis.title, "Field report");
    assert.equal(analysis.created, "2026-03-14T09:30:00.000Z");
    assert.equal(analysis.language, "en");
    assert.equal(analysis.extra.pdf.page_count, 1);
    assert.equal(analysis.extra.pdf.producer, "Loupe tests");
    assert.equal(analysis.extra.dc.creator, "CERT team");
    assert.equal(analysis.content_length, pdf.length);
    assert.match(analysis.extra.hashes.sha256, /^[0-9a-f]{64}$/);
  });

  it("reads DOCX and ODT by content, whatever their names", async () => {
    const docx = await extract(
      simpleDocx([FR, "Deuxième paragraphe."], {
        title: "Rapport",
        creator: "Équipe",
        created: "2026-02-01T08:00:00Z",
      }),
      "not-a-zip.txt",
    );
    assert.equal(
      docx.analysis.type,
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    assert.match(docx.body.content, /logiciel espion/);
    assert.equal(docx.analysis.title, "Rapport");
    assert.equal(docx.analysis.created, "2026-02-01T08:00:00.000Z");
    assert.equal(docx.analysis.language, "fr");
    assert.equal(docx.analysis.extra.dc.creator, "Équipe");

    const odt = await extract(
      simpleOdt([DE], { title: "Bericht", creator: "Team", created: "2026-01-05T10:00:00" }),
      "x.odt",
    );
    assert.equal(odt.analysis.type, "application/vnd.oasis.opendocument.text");
    assert.match(odt.body.content, /Spionagesoftware/);
    assert.equal(odt.analysis.title, "Bericht");
    assert.equal(odt.analysis.language, "de");
  });

  it("reads EPUB chapters in reading order, with title, author and date", async () => {
    const epub = simpleEpub([`Chapter one: ${EN}`, "Chapter two: the end."], {
      title: "Field notes",
      creator: "A. Writer",
      date: "2025-06-01",
    });
    const { body, analysis } = await extract(epub, "book.zip");
    assert.equal(analysis.type, "application/epub+zip");
    assert.equal(analysis.title, "Field notes");
    assert.equal(analysis.created, "2025-06-01T00:00:00.000Z");
    assert.equal(analysis.extra.dc.creator, "A. Writer");
    assert.equal(analysis.extra.epub.chapter_count, 2);
    assert.ok(body.content.indexOf("Chapter one") < body.content.indexOf("Chapter two"), body.content);
  });

  it("reads HTML with its title, without scripts", async () => {
    const html = `<!doctype html><html lang="en"><head><title>Phishing page</title><meta name="author" content="x"></head><body><h1>Login</h1><p>${EN}</p><script>steal()</script></body></html>`;
    const { body, analysis } = await extract(html, "page.bin");
    assert.equal(analysis.type, "text/html");
    assert.equal(analysis.title, "Phishing page");
    assert.match(body.content, /Login/);
    assert.doesNotMatch(body.content, /steal/);
    assert.equal(analysis.extra.html.author, "x");
  });

  it("detects text encodings: UTF-8, UTF-16 with BOM, Windows-1252", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(FR, "utf16le")]);
    const cp1252 = Buffer.from(FR, "latin1"); // every character of FR exists in Windows-1252
    for (const [bytes, encoding] of [
      [Buffer.from(FR), "UTF-8"],
      [utf16, "UTF-16LE"],
      [cp1252, undefined],
    ] as const) {
      const { body, analysis } = await extract(bytes, "t.txt");
      assert.equal(analysis.type, "text/plain");
      assert.match(body.content, /enquêteurs/);
      if (encoding) assert.equal(analysis.extra.text.encoding, encoding);
    }
  });

  it("reads an email: headers, body, attachments and the text of attached documents", async () => {
    const eml = multipartEmail({
      subject: "Invoice overdue",
      body: EN,
      attachmentName: "invoice.docx",
      attachment: simpleDocx([FR], { title: "Facture", creator: "x", created: "2026-01-01T00:00:00Z" }),
    });
    const { body, analysis } = await extract(eml, "mail.eml");
    assert.equal(analysis.type, "message/rfc822");
    assert.equal(analysis.title, "Invoice overdue");
    assert.equal(analysis.created, "2026-11-10T09:15:00.000Z");
    assert.equal(analysis.extra.mail.from, '"Alice" <alice@example.org>');
    assert.equal(analysis.extra.mail.to, '"Bob" <bob@example.org>');
    assert.equal(analysis.extra.mail.message_id, "<m42@example.org>");
    assert.equal(analysis.extra.mail.attachment_count, 1);
    assert.equal(analysis.extra.mail.attachments[0].filename, "invoice.docx");
    assert.equal(
      analysis.extra.mail.attachments[0].type,
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    assert.match(body.content, /journalist/);
    assert.match(body.content, /logiciel espion/, "the attached document's text is extracted too");
  });

  it("reads audio tags and technical metadata", async () => {
    const { analysis } = await extract(
      taggedWav(2, { title: "Intercepted call", artist: "Unknown" }),
      "call.wav",
    );
    assert.match(analysis.type, /^audio\//);
    assert.equal(analysis.title, "Intercepted call");
    assert.equal(analysis.extra.tags.artist, "Unknown");
    assert.equal(analysis.extra.audio.sample_rate, 8000);
    assert.equal(analysis.extra.audio.channels, 1);
    assert.equal(analysis.extra.audio.duration_seconds, 2);
  });

  it("reads image metadata (EXIF) and dimensions", async () => {
    const jpeg = await sharp({ create: { width: 64, height: 32, channels: 3, background: "red" } })
      .withExif({ IFD0: { ImageDescription: "Protest, main square", Make: "LoupeCam" } })
      .jpeg()
      .toBuffer();
    const { analysis } = await extract(jpeg, "photo.jpg");
    assert.equal(analysis.type, "image/jpeg");
    assert.equal(analysis.extra.image.width, 64);
    assert.equal(analysis.extra.exif.make, "LoupeCam");
    assert.equal(analysis.title, "Protest, main square");
  });

  it("lists archives and extracts the text of contained documents, recursively", async () => {
    const inner = storedZip({
      "notes.txt": EN,
      "doc.docx": simpleDocx([FR], { title: "t", creator: "c", created: "2026-01-01T00:00:00Z" }),
    });
    const outer = storedZip({ "readme.txt": DE, "inner.zip": inner });
    const { body, analysis } = await extract(outer, "bundle.zip");
    assert.equal(analysis.type, "application/zip");
    assert.deepEqual(
      analysis.extra.archive.entries.map((e: { name: string }) => e.name),
      ["readme.txt", "inner.zip"],
    );
    assert.match(body.content, /Spionagesoftware/);
    assert.match(body.content, /spyware/);
    assert.match(body.content, /logiciel espion/);
  });

  it("ends a zip bomb and deep nesting with a partial result that says so", async () => {
    const bomb = storedZip({ "a.txt": "fine", "zeros.bin": Buffer.alloc(300_000) });
    const { body, analysis } = await extract(bomb, "bomb.zip");
    assert.equal(body.success, true);
    assert.match(analysis.extra.archive.truncated, /uncompressed bytes/);
    let nested = storedZip({ "deep.txt": EN });
    for (let i = 0; i < 4; i++) nested = storedZip({ [`level${i}.zip`]: nested });
    const deep = await extract(nested, "deep.zip");
    assert.match(deep.analysis.extra.archive.truncated, /nesting deeper than 2/);
  });

  it("counts compressed streams as nesting: gzip in gzip in gzip stops at the depth limit", async () => {
    let layers: Buffer = Buffer.from(EN);
    for (let i = 0; i < 4; i++) layers = gzipSync(layers);
    const { body, analysis } = await extract(layers, "deep.txt.gz.gz.gz.gz");
    assert.equal(body.success, true);
    assert.equal(analysis.type, "application/gzip");
    assert.match(JSON.stringify(analysis.extra.archive), /nesting deeper than 2/);
    const shallow = await extract(gzipSync(Buffer.from(EN)), "note.txt.gz");
    assert.match(shallow.body.content, /spyware on the journalist/);
  });

  it("reads unknown binaries as printable strings", async () => {
    const bin = Buffer.concat([
      Buffer.from([0x7f, 0, 1, 2, 3]),
      Buffer.from("http://c2.example/beacon"),
      Buffer.from([0, 0, 0xff]),
      Buffer.from("ab"),
    ]);
    const { body, analysis } = await extract(bin, "x");
    assert.equal(analysis.type, "application/octet-stream");
    assert.equal(body.content, "http://c2.example/beacon");
  });

  it("reports a malformed file of a known type in the entry, with HTTP 200", async () => {
    const { body, entry } = await extract(Buffer.from("%PDF-1.7\nthis is not really a pdf\n"), "broken.pdf");
    assert.equal(body.success, false);
    assert.equal(entry.success, false);
    assert.equal(entry.error_short, "parse_error");
    assert.ok(entry.error.length > 0);
  });

  it("stops opening archive entries as the time limit comes near, and answers with what it read", async () => {
    // 8,000 PDFs take pdf.js well over a 6 s limit, even on a fast machine; entries stop at three
    // quarters of it, which leaves the last quarter to answer even on a loaded one.
    const pdfs: Record<string, Buffer> = {};
    for (let i = 0; i < 8000; i++)
      pdfs[`report-${i}.pdf`] = simplePdf(`${EN} ${i}`, { title: "t", author: "a", created: "D:2026" });
    const timed = await startFilesServer({ EXTRACT_TIMEOUT_MS: "6000" });
    try {
      const { body, analysis } = await extractFile(timed, storedZip(pdfs), "reports.zip");
      assert.equal(body.success, true, JSON.stringify(body.processors.extractor.error));
      assert.match(analysis.extra.loupe.truncated, /time limit came near/);
      assert.match(body.content, /── report-0\.pdf ──/);
      const unread = analysis.extra.archive.entries.filter((e: { type?: string }) => e.type === undefined);
      assert.ok(unread.length > 0, "later entries are listed without being read");
    } finally {
      await timed.close();
    }
  });

  it("stops an extraction at EXTRACT_TIMEOUT_MS and keeps serving", async () => {
    const slow = await startFilesServer({ EXTRACT_TIMEOUT_MS: "1" });
    try {
      const res = await postFile(
        `${slow.url}/analyzer/extractor`,
        simplePdf(EN, { title: "t", author: "a", created: "D:2026" }),
        "a.pdf",
      );
      const body = await json(res);
      assert.equal(body.processors.extractor.error_short, "timeout");
      assert.equal((await fetch(`${slow.url}/`)).status, 200);
    } finally {
      await slow.close();
    }
  });
});
