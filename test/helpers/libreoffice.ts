/**
 * Real office documents for the extractor tests, written by LibreOffice headless from flat
 * OpenDocument sources (.fodt/.fods/.fodp) the tests write with known text and metadata.
 *
 * One soffice run per target format converts every source asking for it (startup is the slow
 * part); each run has a private profile, so parallel test files never share one. Results are
 * cached on disk under a hash of the sources and targets, so a test run builds them once.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export interface Conversion {
  /** File name of the source, with its extension (which tells LibreOffice the format): "report.fodt". */
  source: string;
  content: string | Buffer;
  /** Target specs as given to --convert-to: "docx", or "pdf:writer_pdf_Export:{...}". */
  to: string[];
}

const SOFFICE_TIMEOUT_MS = 180_000;
const memo = new Map<string, Promise<Record<string, Buffer>>>();

/**
 * Converts each source to each of its targets. Answers output file name → bytes, where the
 * output is named like soffice names it: the source's stem and the target's extension.
 */
export function convertWithLibreOffice(conversions: Conversion[]): Promise<Record<string, Buffer>> {
  const hash = createHash("sha256");
  for (const c of conversions) hash.update(c.source).update("\0").update(c.content).update(c.to.join("\0"));
  const key = hash.digest("hex").slice(0, 24);
  let built = memo.get(key);
  if (!built) {
    built = cachedBuild(key, conversions);
    memo.set(key, built);
  }
  return built;
}

async function cachedBuild(key: string, conversions: Conversion[]): Promise<Record<string, Buffer>> {
  const cacheRoot = path.join(os.tmpdir(), "loupe-libreoffice-fixtures");
  const done = path.join(cacheRoot, key);
  if (!existsSync(done)) {
    await mkdir(cacheRoot, { recursive: true });
    const work = await mkdtemp(path.join(cacheRoot, `${key}.building-`));
    try {
      await build(work, conversions);
      await rename(path.join(work, "out"), done).catch((err: NodeJS.ErrnoException) => {
        // Another test process finished the same build first: use its files.
        if (!existsSync(done)) throw err;
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const out: Record<string, Buffer> = {};
  for (const name of await readdir(done)) out[name] = await readFile(path.join(done, name));
  return out;
}

async function build(work: string, conversions: Conversion[]): Promise<void> {
  const src = path.join(work, "src");
  const out = path.join(work, "out");
  await mkdir(src);
  await mkdir(out);
  const byTarget = new Map<string, string[]>();
  for (const c of conversions) {
    await writeFile(path.join(src, c.source), c.content);
    for (const t of c.to) byTarget.set(t, [...(byTarget.get(t) ?? []), path.join(src, c.source)]);
  }
  const profile = `file://${path.join(work, "profile")}`;
  for (const [target, files] of byTarget) {
    const log = await soffice([
      `-env:UserInstallation=${profile}`,
      "--headless",
      "--norestore",
      "--convert-to",
      target,
      "--outdir",
      out,
      ...files,
    ]);
    const ext = target.split(":")[0] ?? target;
    for (const f of files) {
      const expected = `${path.basename(f, path.extname(f))}.${ext}`;
      if (!existsSync(path.join(out, expected)))
        throw new Error(`LibreOffice did not write ${expected} (--convert-to ${target}):\n${log}`);
    }
  }
}

function soffice(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("soffice", args, { stdio: ["ignore", "pipe", "pipe"], timeout: SOFFICE_TIMEOUT_MS });
    let log = "";
    child.stdout.on("data", (d) => (log += d));
    child.stderr.on("data", (d) => (log += d));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      code === 0 ? resolve(log) : reject(new Error(`soffice ended with ${code ?? signal}:\n${log}`)),
    );
  });
}

// ── Flat OpenDocument sources ────────────────────────────────────────────────────────────────

export interface DocumentMeta {
  title: string;
  creator: string;
  /** Local date-time without zone, as OpenDocument stores it: "2026-03-14T09:30:00". */
  created: string;
  /** BCP 47 tag, e.g. "fr-FR". */
  language: string;
  subject?: string;
  keywords?: string[];
}

const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"',
  'xmlns:dc="http://purl.org/dc/elements/1.1/"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
].join(" ");

export const xmlEscape = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function metaXml(m: DocumentMeta): string {
  const keywords = (m.keywords ?? []).map((k) => `<meta:keyword>${xmlEscape(k)}</meta:keyword>`).join("");
  return `<office:meta><dc:title>${xmlEscape(m.title)}</dc:title>${m.subject ? `<dc:subject>${xmlEscape(m.subject)}</dc:subject>` : ""}${keywords}<meta:initial-creator>${xmlEscape(m.creator)}</meta:initial-creator><dc:creator>${xmlEscape(m.creator)}</dc:creator><meta:creation-date>${m.created}</meta:creation-date><dc:date>${m.created}</dc:date><dc:language>${m.language}</dc:language></office:meta>`;
}

function languageStyle(language: string): string {
  const [lang, country] = language.split("-");
  return `<office:styles><style:default-style style:family="paragraph"><style:text-properties fo:language="${lang}"${country ? ` fo:country="${country}"` : ""}/></style:default-style></office:styles>`;
}

function flat(mimetype: string, meta: DocumentMeta, styles: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<office:document ${NS} office:version="1.3" office:mimetype="${mimetype}">${metaXml(meta)}${languageStyle(meta.language)}${styles}<office:body>${body}</office:body></office:document>\n`;
}

/**
 * A text document: a heading, then pages of paragraphs (each page after the first starts on a new
 * page), then one page per PNG in `imagePages` holding only that image (a scanned page: no text).
 */
export function flatText(
  meta: DocumentMeta,
  heading: string,
  pages: string[][],
  imagePages: Array<{ png: Buffer; widthCm: number; heightCm: number }> = [],
): string {
  const styles = `<office:automatic-styles><style:style style:name="NewPage" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles>`;
  const body = pages
    .map((paragraphs, i) =>
      paragraphs
        .map(
          (p, j) => `<text:p${i > 0 && j === 0 ? ' text:style-name="NewPage"' : ""}>${xmlEscape(p)}</text:p>`,
        )
        .join(""),
    )
    .join("");
  const images = imagePages
    .map(
      (img, i) =>
        `<text:p text:style-name="NewPage"><draw:frame draw:name="scan${i + 1}" text:anchor-type="as-char" svg:width="${img.widthCm}cm" svg:height="${img.heightCm}cm"><draw:image><office:binary-data>${img.png.toString("base64")}</office:binary-data></draw:image></draw:frame></text:p>`,
    )
    .join("");
  return flat(
    "application/vnd.oasis.opendocument.text",
    meta,
    styles,
    `<office:text><text:h text:outline-level="1">${xmlEscape(heading)}</text:h>${body}${images}</office:text>`,
  );
}

/** A spreadsheet: sheet name → rows of string or number cells. */
export function flatSpreadsheet(
  meta: DocumentMeta,
  sheets: Record<string, Array<Array<string | number>>>,
): string {
  const cell = (v: string | number) =>
    typeof v === "number"
      ? `<table:table-cell office:value-type="float" office:value="${v}"><text:p>${v}</text:p></table:table-cell>`
      : `<table:table-cell office:value-type="string"><text:p>${xmlEscape(v)}</text:p></table:table-cell>`;
  const tables = Object.entries(sheets)
    .map(
      ([name, rows]) =>
        `<table:table table:name="${xmlEscape(name)}">${rows.map((r) => `<table:table-row>${r.map(cell).join("")}</table:table-row>`).join("")}</table:table>`,
    )
    .join("");
  return flat(
    "application/vnd.oasis.opendocument.spreadsheet",
    meta,
    "",
    `<office:spreadsheet>${tables}</office:spreadsheet>`,
  );
}

/** A presentation: one slide per entry, each with a title and body paragraphs. */
export function flatPresentation(
  meta: DocumentMeta,
  slides: Array<{ title: string; body: string[] }>,
): string {
  const frame = (y: number, h: number, paragraphs: string[]) =>
    `<draw:frame svg:x="1cm" svg:y="${y}cm" svg:width="24cm" svg:height="${h}cm"><draw:text-box>${paragraphs.map((p) => `<text:p>${xmlEscape(p)}</text:p>`).join("")}</draw:text-box></draw:frame>`;
  const pages = slides
    .map(
      (s, i) =>
        `<draw:page draw:name="slide${i + 1}" draw:master-page-name="Default">${frame(1, 3, [s.title])}${frame(5, 12, s.body)}</draw:page>`,
    )
    .join("");
  const masters = `<office:master-styles><style:master-page style:name="Default"/></office:master-styles>`;
  return flat(
    "application/vnd.oasis.opendocument.presentation",
    meta,
    masters,
    `<office:presentation>${pages}</office:presentation>`,
  );
}
