/**
 * PDF page text through poppler's real pdftotext (formats/pdftotext.ts) and the PDF reader's use
 * of it: one text per page, the same words as pdf.js, pdf.js taking over when pdftotext fails,
 * and a PDF built to make pdftotext balloon stopped by its memory limit, its time limit and the
 * text budget.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { deflateSync } from "node:zlib";
import { Budget } from "../../src/files/processors/extractor/budget.ts";
import { extractPdf } from "../../src/files/processors/extractor/formats/pdf.ts";
import { startPdftotext } from "../../src/files/processors/extractor/formats/pdftotext.ts";
import { normaliseWhitespace, ParseFailure } from "../../src/files/processors/extractor/result.ts";
import { startChildServer } from "../helpers/child-server.ts";
import { pdfFromObjects } from "../helpers/documents.ts";
import { json } from "../helpers/json.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

const PAGES = ["First page of the incident report", "Second page lists the indicators", "Third page ends it"];
const BRIEFING = readFileSync(path.join(import.meta.dirname, "../fixtures/iocs/briefing.pdf"));
const LIMITS = { maxChars: 10_000_000, maxDepth: 3, maxArchiveBytes: 100_000_000, maxArchiveEntries: 100 };

/** One Helvetica page per text, two lines each (the text, then "page N"). */
function pagedPdf(texts: string[]): Buffer {
  const pageObjects = texts.flatMap((text, i) => {
    const content = `BT /F1 12 Tf 72 720 Td (${text}) Tj 0 -20 Td (page ${i + 1}) Tj ET`;
    return [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${5 + 2 * i} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    ];
  });
  const kids = texts.map((_, i) => `${4 + 2 * i} 0 R`).join(" ");
  return pdfFromObjects(
    [
      "<< /Type /Catalog /Pages 2 0 R >>",
      `<< /Type /Pages /Kids [${kids}] /Count ${texts.length} >>`,
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
      ...pageObjects,
    ],
    "/Root 1 0 R",
  );
}

/**
 * One page whose content (20 MiB inflated, 50 KB in the file) draws a word 650,000 times at the
 * same spot: pdftotext keeps every word of a page, so it takes about 1 GB and 10 s of one core.
 */
function balloonPdf(): Buffer {
  const draw = Buffer.from("1 0 0 1 72 720 Tm (AAAAAAAA) Tj\n".repeat(50_000), "latin1");
  const content = Buffer.concat([
    Buffer.from("BT /F1 12 Tf\n"),
    ...Array<Buffer>(13).fill(draw),
    Buffer.from("ET"),
  ]);
  const packed = deflateSync(content);
  return pdfFromObjects(
    [
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
      Buffer.concat([
        Buffer.from(`<< /Length ${packed.length} /Filter /FlateDecode >>\nstream\n`),
        packed,
        Buffer.from("\nendstream"),
      ]),
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ],
    "/Root 1 0 R",
  );
}

/** The pdftotext processes this test process started that are still running. */
function pdftotextChildren(): number[] {
  const out = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((line) => / pdftotext$/.test(line.trimEnd()))
    .map((line) => Number.parseInt(line, 10));
}

const words = (text: string) => normaliseWhitespace(text).split(/\s+/);

describe("PDF text with pdftotext", { skip: skipUnlessCommands("pdftotext", "prlimit", "qpdf") }, () => {
  it("gives one text per page, in order", async () => {
    const run = await startPdftotext(pagedPdf(PAGES), { memoryMb: 256 }).result;
    assert.equal(run.outcome, "done");
    assert.ok(run.outcome === "done");
    assert.deepEqual(
      run.pages.map((p) => p.trim()),
      PAGES.map((text, i) => `${text}\npage ${i + 1}`),
    );
  });

  it("reads a file by its path as it reads bytes on its stdin", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "loupe-pdf-"));
    try {
      const file = path.join(dir, "-briefing.pdf");
      writeFileSync(file, BRIEFING);
      const fromPath = await startPdftotext(file, { memoryMb: 256 }).result;
      const fromStdin = await startPdftotext(BRIEFING, { memoryMb: 256 }).result;
      assert.equal(fromPath.outcome, "done");
      assert.deepEqual(fromPath, fromStdin);
      const read = await extractPdf(Buffer.from(BRIEFING), { file });
      assert.equal(read.extracted.text, (await extractPdf(Buffer.from(BRIEFING))).extracted.text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the PDF reader gives pdftotext's words, the same pdf.js gives when pdftotext fails (LibreOffice PDF)", async () => {
    const poppler = await extractPdf(Buffer.from(BRIEFING));
    // 1 MB of data segment: pdftotext aborts on its first allocations, pdf.js reads the pages.
    const pdfjs = await extractPdf(Buffer.from(BRIEFING), { memoryMb: 1 });
    assert.deepEqual(words(poppler.extracted.text), words(pdfjs.extracted.text));
    assert.match(poppler.extracted.text, /\w+ \w+/);
    assert.deepEqual(poppler.extracted.extra, pdfjs.extracted.extra);
    assert.equal(poppler.extracted.title, "Incident briefing");
    const pages = await extractPdf(pagedPdf(PAGES));
    assert.equal(
      normaliseWhitespace(pages.extracted.text),
      PAGES.map((text, i) => `${text}\npage ${i + 1}`).join("\n\n"),
    );
  });

  it("a PDF that needs a password keeps pdf.js's answer", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "loupe-pdf-"));
    try {
      writeFileSync(path.join(dir, "plain.pdf"), pagedPdf(PAGES));
      execFileSync("qpdf", ["--encrypt", "user", "owner", "256", "--", "plain.pdf", "locked.pdf"], {
        cwd: dir,
      });
      await assert.rejects(
        extractPdf(readFileSync(path.join(dir, "locked.pdf"))),
        (err) => err instanceof ParseFailure && /encrypted and needs a password/.test(err.message),
      );
      assert.deepEqual(pdftotextChildren(), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("a PDF that makes pdftotext balloon", () => {
    let balloon: Buffer;
    before(() => {
      balloon = balloonPdf();
    });
    after(() => assert.deepEqual(pdftotextChildren(), []));

    it("is stopped by its memory limit", async () => {
      const started = Date.now();
      const run = await startPdftotext(balloon, { memoryMb: 128 }).result;
      assert.equal(run.outcome, "failed", JSON.stringify(run));
      assert.ok(Date.now() - started < 8_000, `${Date.now() - started} ms`);
    });

    it("is stopped by its time limit, and the reader says the time ran out", async () => {
      const started = Date.now();
      const run = await startPdftotext(balloon, { memoryMb: 2048, timeoutMs: 300 }).result;
      assert.deepEqual(run, { outcome: "cut", pages: [], limit: "time" });
      assert.ok(Date.now() - started < 3_000, `${Date.now() - started} ms`);

      const budget = new Budget(LIMITS, Date.now() + 400);
      const read = await extractPdf(balloonPdf(), { budget, memoryMb: 2048 });
      assert.equal(read.extracted.text, "");
      assert.equal(read.extracted.extra.pdf?.page_count, 1);
      assert.match(budget.reason ?? "", /time limit/);
    });

    it("the text budget stops it after the pages that fit", async () => {
      const run = await startPdftotext(pagedPdf(PAGES), { memoryMb: 256, maxBytes: 10 }).result;
      assert.equal(run.outcome, "cut");
      assert.ok(run.outcome === "cut" && run.limit === "text");
      // Only whole pages are kept (here the one chunk that went past the cap held them all).
      assert.deepEqual(
        run.pages.map((page) => page.trim()),
        PAGES.slice(0, run.pages.length).map((text, i) => `${text}\npage ${i + 1}`),
      );

      const budget = new Budget({ ...LIMITS, maxChars: 40 }, Date.now() + 60_000);
      const read = await extractPdf(pagedPdf(PAGES), { budget });
      assert.match(read.extracted.text, /^First page/);
      assert.doesNotMatch(read.extracted.text, /Third page/);
      assert.match(budget.reason ?? "", /FILES_EXTRACT_MAX_CHARS/);
    });
  });
});

describe("the health says who reads PDF pages", { skip: skipUnlessCommands("pdftotext") }, () => {
  const pdfText = async (env: Record<string, string>) => {
    const server = await startChildServer(["files", "serve"], env);
    try {
      return (await json(await fetch(`${server.url}/`))).engines.pdf_text;
    } finally {
      await server.stop();
    }
  };

  it("pdftotext where poppler-utils is installed, pdf.js (and why) where it is not", async () => {
    assert.match((await pdfText({})).detail, /^poppler's pdftotext/);
    const without = await pdfText({ PATH: "/nonexistent" });
    assert.equal(without.ready, true);
    assert.match(without.detail, /^pdf\.js: pdftotext is not installed/);
  });
});
