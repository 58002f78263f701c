/**
 * The format table on raw bytes, in-process (the HTTP suites cover the same formats through a
 * server): each row recognises its sample, the sample comes out with its type and known text,
 * and every row of the table has a sample here, so a new row cannot land untested.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import sharp from "sharp";
import { Budget, type Limits } from "../../src/files/processors/extractor/budget.ts";
import { extractBytes } from "../../src/files/processors/extractor/extract.ts";
import { FORMATS, formatOf } from "../../src/files/processors/extractor/formats/table.ts";
import { buildApk } from "../helpers/apk.ts";
import {
  multipartEmail,
  simpleDocx,
  simpleEpub,
  simpleOdt,
  simplePdf,
  taggedWav,
} from "../helpers/documents.ts";
import { buildMsg } from "../helpers/msg.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { cabinet, compressedStream, isoImage, sevenZipArchive, tarball } from "../helpers/sevenzip.ts";
import { storedZip } from "../helpers/zip.ts";

const SENTENCE = "The investigators found the spyware on the phone.";
const archiveTools = skipUnlessCommands("7zz", "xorriso", "gcab");

function limits(): Limits {
  const settings = { maxChars: 1_000_000, maxDepth: 4, maxArchiveBytes: 64 << 20, maxArchiveEntries: 1000 };
  return { ...settings, budget: new Budget(settings, Date.now() + 60_000) };
}

interface Sample {
  /** The table row expected to take it (its `name`). */
  row: string;
  what: string;
  bytes: () => Promise<Buffer> | Buffer;
  type: string | RegExp;
  /** Text the extraction must contain. */
  text?: string;
  title?: string;
  needsArchiveTools?: boolean;
}

const meta = { title: "Report", creator: "CERT", created: "2026-03-14T09:30:00Z" };
const row = (prefix: string) => FORMATS.find((f) => f.name.startsWith(prefix))?.name ?? prefix;

const SAMPLES: Sample[] = [
  {
    row: row("pdf"),
    what: "PDF",
    bytes: () => simplePdf(SENTENCE, { ...meta, author: "CERT" }),
    type: "application/pdf",
    text: SENTENCE,
  },
  {
    row: row("image"),
    what: "PNG",
    bytes: () =>
      sharp({ create: { width: 8, height: 8, channels: 3, background: "#f00" } })
        .png()
        .toBuffer(),
    type: "image/png",
  },
  {
    row: row("zip family"),
    what: "DOCX",
    bytes: () => simpleDocx([SENTENCE], meta),
    type: /wordprocessingml/,
    text: SENTENCE,
  },
  {
    row: row("zip family"),
    what: "ODT",
    bytes: () => simpleOdt([SENTENCE], meta),
    type: "application/vnd.oasis.opendocument.text",
    text: SENTENCE,
  },
  {
    row: row("zip family"),
    what: "EPUB",
    bytes: () => simpleEpub([SENTENCE], { ...meta, date: "2026-03-14" }),
    type: "application/epub+zip",
    text: "spyware",
  },
  {
    row: row("zip family"),
    what: "APK",
    bytes: () =>
      buildApk(
        { name: "manifest", attributes: { package: "org.example.spy" }, children: [] },
        { utf8: true },
      ),
    type: "application/vnd.android.package-archive",
    text: "org.example.spy",
  },
  {
    row: row("zip family"),
    what: "plain ZIP",
    bytes: () => storedZip({ "notes.txt": SENTENCE }),
    type: "application/zip",
    text: SENTENCE,
  },
  {
    row: row("compressed stream"),
    what: "gzip",
    bytes: () => gzipSync(SENTENCE),
    type: "application/gzip",
    text: SENTENCE,
  },
  {
    row: row("compressed stream"),
    what: "xz",
    bytes: () => compressedStream(SENTENCE, "xz"),
    type: "application/x-xz",
    text: SENTENCE,
    needsArchiveTools: true,
  },
  {
    row: row("tar"),
    what: "tar",
    bytes: () => tarball({ "notes.txt": SENTENCE }),
    type: "application/x-tar",
    text: SENTENCE,
    needsArchiveTools: true,
  },
  {
    row: row("7z"),
    what: "7z",
    bytes: () => sevenZipArchive({ "notes.txt": SENTENCE }),
    type: "application/x-7z-compressed",
    text: SENTENCE,
    needsArchiveTools: true,
  },
  {
    row: row("7z"),
    what: "ISO 9660",
    bytes: () => isoImage({ "notes.txt": SENTENCE }, "CASE42"),
    type: "application/x-iso9660-image",
    text: SENTENCE,
    needsArchiveTools: true,
  },
  {
    row: row("7z"),
    what: "CAB",
    bytes: () => cabinet({ "notes.txt": SENTENCE }),
    type: "application/vnd.ms-cab-compressed",
    text: SENTENCE,
    needsArchiveTools: true,
  },
  {
    row: row("rtf"),
    what: "RTF",
    bytes: () => Buffer.from(`{\\rtf1\\ansi ${SENTENCE}\\par}`),
    type: "application/rtf",
    text: SENTENCE,
  },
  {
    row: row("ole"),
    what: "Outlook MSG",
    bytes: () =>
      buildMsg({
        subject: "Spyware report",
        senderName: "Alice",
        senderEmail: "alice@example.org",
        recipients: [{ name: "Bob", email: "bob@example.org", kind: "to" }],
        body: SENTENCE,
        sent: new Date("2026-03-14T09:30:00Z"),
        attachments: [],
      }),
    type: "application/vnd.ms-outlook",
    text: SENTENCE,
  },
  {
    row: row("audio and video"),
    what: "WAV",
    bytes: () => taggedWav(1, { title: "Call", artist: "Unknown" }),
    type: /^audio\//,
    title: "Call",
  },
  {
    row: row("other known binary"),
    what: "SQLite database",
    bytes: () =>
      Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(84), Buffer.from(` ${SENTENCE} `)]),
    type: "application/x-sqlite3",
    text: "investigators",
  },
  {
    row: row("untyped binary"),
    what: "random bytes",
    bytes: () => Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 7, ...Buffer.from(` ${SENTENCE} `)]),
    type: "application/octet-stream",
    text: "investigators",
  },
  {
    row: row("e-mail"),
    what: "RFC 822 message",
    bytes: () =>
      Buffer.from(
        multipartEmail({
          subject: "Report",
          body: SENTENCE,
          attachmentName: "a.txt",
          attachment: Buffer.from("x"),
        }),
      ),
    type: "message/rfc822",
    text: SENTENCE,
  },
  {
    row: row("html"),
    what: "HTML",
    bytes: () => Buffer.from(`<!doctype html><html><body><p>${SENTENCE}</p></body></html>`),
    type: "text/html",
    text: SENTENCE,
  },
  {
    row: row("xml"),
    what: "XML",
    bytes: () => Buffer.from(`<?xml version="1.0"?><note>${SENTENCE}</note>`),
    type: "application/xml",
    text: SENTENCE,
  },
  {
    row: row("text"),
    what: "JSON",
    bytes: () => Buffer.from(JSON.stringify({ note: SENTENCE })),
    type: "application/json",
    text: SENTENCE,
  },
  {
    row: row("text"),
    what: "CSV",
    bytes: () => Buffer.from("a,b,c\n1,2,3\n4,5,6\n"),
    type: "text/csv",
    text: "4,5,6",
  },
  {
    row: row("text"),
    what: "plain text",
    bytes: () => Buffer.from(SENTENCE),
    type: "text/plain",
    text: SENTENCE,
  },
];

describe("the extractor's format table, on raw bytes", () => {
  for (const sample of SAMPLES) {
    const skip = sample.needsArchiveTools ? archiveTools : false;
    it(`${sample.what}: taken by "${sample.row}", read as ${sample.type}`, { skip }, async () => {
      const bytes = await sample.bytes();
      const { fileTypeFromBuffer } = await import("file-type");
      const mime = (await fileTypeFromBuffer(bytes))?.mime as string | undefined;
      const l = limits();
      const recurse = (b: Buffer, n: string, d: number) => extractBytes(b, n, d, l);
      assert.equal(formatOf({ bytes, name: "sample", mime, depth: 0, limits: l, recurse }).name, sample.row);
      const out = await extractBytes(bytes, "sample", 0, l);
      if (typeof sample.type === "string") assert.equal(out.type, sample.type);
      else assert.match(out.type, sample.type);
      if (sample.text)
        assert.ok(out.text.includes(sample.text), `text has "${sample.text}": ${out.text.slice(0, 200)}`);
      if (sample.title) assert.equal(out.title, sample.title);
    });
  }

  it("every row of the table has a sample above", () => {
    const covered = new Set(SAMPLES.map((s) => s.row));
    assert.deepEqual(
      FORMATS.map((f) => f.name).filter((n) => !covered.has(n)),
      [],
    );
  });

  it("the last row takes anything the others refuse", () => {
    const last = FORMATS.at(-1);
    assert.ok(
      last?.detect({
        bytes: Buffer.from("x"),
        name: "x",
        mime: undefined,
        depth: 0,
        limits: limits(),
        recurse: async () => ({ type: "", text: "", extra: {} }),
      }),
    );
  });
});
