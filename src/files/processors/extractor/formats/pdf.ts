/**
 * PDF: text per page from poppler's pdftotext (pdftotext.ts), or from pdf.js (through unpdf) when
 * pdftotext cannot read the file; the info dictionary, XMP, page count and attachments from pdf.js.
 */
import { getDocumentProxy } from "unpdf";
import type { Budget } from "../budget.ts";
import { type Extracted, isoDate, ParseFailure, snakeCase } from "../result.ts";
import { hasPdftotext, type PdftotextJob, startPdftotext } from "./pdftotext.ts";

/** PDF dates look like D:20261122143000+01'00'. */
export function pdfDate(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const m = /^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?/.exec(
    value.trim(),
  );
  if (!m) return isoDate(value);
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", sign, th = "00", tm = "00"] = m;
  const zone = !sign || sign.toUpperCase() === "Z" ? "Z" : `${sign}${th}:${tm}`;
  return isoDate(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
}

/** pdftotext's memory limit when the caller gives none (the default FILES_EXTRACT_MEMORY_MB). */
const DEFAULT_MEMORY_MB = 1024;
/** Room over the text budget for pdftotext's output: a page's worth of bytes. */
const TEXT_SLACK_BYTES = 64 * 1024;

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** What text extraction needs from pdf.js, and nothing it would load only to draw pages. */
const PDFJS_OPTIONS = {
  verbosity: 0,
  isEvalSupported: false, // never compile PostScript functions from an untrusted file
  useSystemFonts: false, // text comes from the PDF's own encodings, not from installed fonts
  disableFontFace: true,
} as const;

/**
 * pdf.js moves (transfers) the buffer it gets to its in-thread worker. A buffer that is a whole
 * allocation (a file read from disk) is handed over as is, so a 200 MB PDF is not held twice;
 * `bytes` is left empty afterwards. A slice of a larger buffer (an archive entry) is copied.
 */
function pdfData(bytes: Buffer): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && !(bytes.buffer instanceof SharedArrayBuffer)
    ? new Uint8Array(bytes.buffer, 0, bytes.byteLength)
    : new Uint8Array(bytes);
}

/** How the pages' text is read: pdftotext's finished output, or pdf.js page by page. */
interface PageSource {
  count: number;
  read(pageNumber: number): Promise<string>;
  /** Reading a page is work the time budget pays for (pdf.js); pdftotext's pages are already read. */
  costly: boolean;
  /** The limit that stopped pdftotext before the last page (its pages are those it finished). */
  cutBy?: "time" | "text";
}

const tooMuchText = (page: number) =>
  `more text than FILES_EXTRACT_MAX_CHARS allows (stopped before page ${page})`;

/**
 * pdf.js, page by page, releasing each page's parsed resources once its text is read, so the
 * memory held stays that of one page (plus the file and shared fonts) however long the document.
 * Items are joined as pdf.js lays them out: its `hasEOL` marks the end of a line.
 */
function pdfjsPages(pdf: PdfDocument): PageSource {
  return {
    count: pdf.numPages,
    costly: true,
    async read(n) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) {
        if (!("str" in item)) continue;
        text += item.hasEOL ? `${item.str}\n` : item.str;
      }
      page.cleanup();
      return text;
    },
  };
}

/** In order; a page without text goes to OCR when it is on. */
async function pageTexts(
  source: PageSource,
  budget: Budget | undefined,
  ocrPage?: OcrPage,
): Promise<string[]> {
  const texts: string[] = [];
  let chars = 0;
  for (let n = 1; n <= source.count; n++) {
    // A page tree may claim billions of pages: the text and time budgets end the reading.
    if (budget && (chars >= budget.charsLeft || (source.costly && !budget.hasTime()))) {
      budget.stop(budget.reason ?? tooMuchText(n));
      break;
    }
    const text = await source.read(n);
    const pageText = ocrPage && !text.trim() && (budget?.hasTime() ?? true) ? await ocrPage(n) : text;
    chars += pageText.length;
    texts.push(pageText);
  }
  // The first reason wins: a stop in the loop above says it better.
  if (source.cutBy === "time") budget?.outOfTime();
  if (source.cutBy === "text") budget?.stop(tooMuchText(texts.length + 1));
  return texts;
}

/** Reads the text of a page that has none (an image-only page): the optional OCR backend. */
export type OcrPage = (pageNumber: number) => Promise<string>;

/**
 * pdftotext is started where it is installed and time is left; without a budget (a direct call)
 * it has no limits but the memory one.
 */
function startPoppler(
  source: Buffer | string,
  budget: Budget | undefined,
  memoryMb: number,
): PdftotextJob | null {
  const timeoutMs = budget?.timeLeftMs();
  if (timeoutMs === 0 || !hasPdftotext()) return null;
  return startPdftotext(source, {
    memoryMb,
    timeoutMs,
    // UTF-8 takes at most 3 bytes per UTF-16 unit: past this, the characters left are surely spent.
    maxBytes: budget ? budget.charsLeft * 3 + TEXT_SLACK_BYTES : undefined,
  });
}

/**
 * pdftotext's pages when it read the same pages pdf.js counts, or the pages it finished before a
 * limit stopped it. Whatever it could not read (a page tree it refuses, a crash, its memory limit,
 * a different page count) is read by pdf.js, as before.
 */
async function pageSource(pdf: PdfDocument, poppler: PdftotextJob | null): Promise<PageSource> {
  const run = await poppler?.result;
  if (run?.outcome === "failed" || !run) return pdfjsPages(pdf);
  if (run.outcome === "cut" && run.pages.length < pdf.numPages)
    return { ...popplerPages(run.pages), cutBy: run.limit };
  return run.pages.length === pdf.numPages ? popplerPages(run.pages) : pdfjsPages(pdf);
}

function popplerPages(pages: string[]): PageSource {
  return { count: pages.length, costly: false, read: async (n) => pages[n - 1] ?? "" };
}

/** A PDF's text and metadata, and the files attached to it (embedded files, file attachment annotations). */
export interface ReadPdf {
  extracted: Extracted;
  attachments: Array<{ name: string; bytes: Buffer }>;
}

export interface PdfOptions {
  ocrPage?: OcrPage;
  budget?: Budget;
  /** pdftotext's memory limit (the sandbox's, FILES_EXTRACT_MEMORY_MB). */
  memoryMb?: number;
  /** The same bytes on disk, when they are: pdftotext reads them there instead of from a pipe. */
  file?: string | undefined;
}

/**
 * Takes the bytes over (see `pdfData`): callers must not read `bytes` afterwards. pdftotext reads
 * the pages (from `file`, else from the bytes, which it gets first) while pdf.js opens them for
 * the metadata and attachments; a file pdf.js cannot open gets pdf.js's answer, as before.
 */
export async function extractPdf(bytes: Buffer, options: PdfOptions = {}): Promise<ReadPdf> {
  const { ocrPage, budget, memoryMb = DEFAULT_MEMORY_MB, file } = options;
  const poppler = startPoppler(file ?? bytes, budget, memoryMb);
  await poppler?.written;
  let pdf: PdfDocument;
  try {
    pdf = await getDocumentProxy(pdfData(bytes), PDFJS_OPTIONS);
  } catch (err) {
    await poppler?.cancel();
    if ((err as { name?: string }).name === "PasswordException")
      throw new ParseFailure("the PDF is encrypted and needs a password to open");
    throw new ParseFailure(`not a readable PDF: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const described = await describe(pdf);
    const pages = await pageTexts(await pageSource(pdf, poppler), budget, ocrPage);
    const extracted = { ...described, text: pages.join("\n\n") };
    return { extracted, attachments: await attachmentsOf(pdf) };
  } finally {
    await poppler?.cancel();
    // Destroying (not just cleaning up) lets the in-thread pdf.js worker drop the document and
    // its bytes now, instead of holding them until the next PDF replaces them.
    await pdf.loadingTask.destroy();
  }
}

/** Title, creation date and the `extra` namespaces: the info dictionary, XMP, page count, encryption. */
async function describe(pdf: PdfDocument): Promise<Omit<Extracted, "text">> {
  const { info, metadata } = await pdf.getMetadata();
  const infoDict = (info ?? {}) as Record<string, unknown>;
  const pdfNs: Record<string, unknown> = { page_count: pdf.numPages };
  // pdf.js opened it without a password; permissions are only set when the file is encrypted.
  const permissions = await pdf.getPermissions().catch(() => null);
  if (permissions) pdfNs.encrypted = true;
  for (const [k, v] of Object.entries(infoDict)) {
    if (v === undefined || v === null || typeof v === "object") continue;
    pdfNs[snakeCase(k)] = k.endsWith("Date") ? (pdfDate(v) ?? String(v)) : v;
  }
  const dc = xmpFields(metadata as { get?: (k: string) => unknown } | null);
  const title =
    (typeof infoDict.Title === "string" && infoDict.Title.trim()) || (dc.title as string | undefined) || null;
  return {
    title,
    created: pdfDate(infoDict.CreationDate) ?? isoDate(dc.createdate),
    extra: {
      pdf: pdfNs,
      ...(Object.keys(dc).length > 0 ? { xmp: dc } : {}),
      ...(typeof infoDict.Author === "string" ? { dc: { creator: infoDict.Author } } : {}),
    },
  };
}

const XMP_KEYS = [
  "dc:title",
  "dc:creator",
  "dc:description",
  "dc:subject",
  "xmp:createdate",
  "xmp:creatortool",
  "pdf:producer",
];

function xmpFields(xmp: { get?: (k: string) => unknown } | null): Record<string, unknown> {
  const dc: Record<string, unknown> = {};
  for (const key of XMP_KEYS) {
    const v = xmp?.get?.(key);
    if (v !== undefined && v !== null && v !== "")
      dc[key.replace(/^[a-z]+:/, "")] = Array.isArray(v) ? v.join(", ") : String(v);
  }
  return dc;
}

/** The PDF's attached files; a damaged attachment table or file gives none rather than failing the text. */
async function attachmentsOf(pdf: PdfDocument): Promise<Array<{ name: string; bytes: Buffer }>> {
  const table = await pdf.getAttachments().catch(() => null);
  const found: Array<{ name: string; bytes: Buffer }> = [];
  for (const [id, a] of table ?? []) {
    const content = await pdf.getAttachmentContent(id).catch(() => null);
    const bytes =
      content instanceof Uint8Array ? content : (content as { content?: Uint8Array } | null)?.content;
    if (bytes)
      found.push({
        name: a.filename || id,
        bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      });
  }
  return found;
}
