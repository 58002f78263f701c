/** PDF with pdf.js (through unpdf): text per page, the info dictionary, XMP, page count. */
import { getDocumentProxy } from "unpdf";
import type { Budget } from "../budget.ts";
import { type Extracted, isoDate, ParseFailure, snakeCase } from "../result.ts";

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

/**
 * Page by page, in order, releasing each page's parsed resources once its text is read, so the
 * memory held stays that of one page (plus the file and shared fonts) however long the document.
 * Items are joined as pdf.js lays them out: its `hasEOL` marks the end of a line.
 */
async function pageTexts(pdf: PdfDocument, budget: Budget | undefined, ocrPage?: OcrPage): Promise<string[]> {
  const texts: string[] = [];
  let chars = 0;
  for (let n = 1; n <= pdf.numPages; n++) {
    // A page tree may claim billions of pages: the text and time budgets end the reading.
    if (budget && (chars >= budget.charsLeft || !budget.hasTime())) {
      budget.stop(
        budget.reason ?? `more text than FILES_EXTRACT_MAX_CHARS allows (stopped before page ${n})`,
      );
      break;
    }
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    let text = "";
    for (const item of content.items) {
      if (!("str" in item)) continue;
      text += item.hasEOL ? `${item.str}\n` : item.str;
    }
    page.cleanup();
    const pageText = ocrPage && !text.trim() ? await ocrPage(n) : text;
    chars += pageText.length;
    texts.push(pageText);
  }
  return texts;
}

/** Reads the text of a page that has none (an image-only page): the optional OCR backend. */
export type OcrPage = (pageNumber: number) => Promise<string>;

/** Takes the bytes over (see `pdfData`): callers must not read `bytes` afterwards. */
/** A PDF's text and metadata, and the files attached to it (embedded files, file attachment annotations). */
export interface ReadPdf {
  extracted: Extracted;
  attachments: Array<{ name: string; bytes: Buffer }>;
}

export async function extractPdf(bytes: Buffer, ocrPage?: OcrPage, budget?: Budget): Promise<ReadPdf> {
  let pdf: PdfDocument;
  try {
    pdf = await getDocumentProxy(pdfData(bytes), PDFJS_OPTIONS);
  } catch (err) {
    if ((err as { name?: string }).name === "PasswordException")
      throw new ParseFailure("the PDF is encrypted and needs a password to open");
    throw new ParseFailure(`not a readable PDF: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const pages = await pageTexts(pdf, budget, ocrPage);
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
    const dc: Record<string, unknown> = {};
    const xmp = metadata as { get?: (k: string) => unknown } | null;
    for (const key of [
      "dc:title",
      "dc:creator",
      "dc:description",
      "dc:subject",
      "xmp:createdate",
      "xmp:creatortool",
      "pdf:producer",
    ]) {
      const v = xmp?.get?.(key);
      if (v !== undefined && v !== null && v !== "")
        dc[key.replace(/^[a-z]+:/, "")] = Array.isArray(v) ? v.join(", ") : String(v);
    }
    const title =
      (typeof infoDict.Title === "string" && infoDict.Title.trim()) ||
      (dc.title as string | undefined) ||
      null;
    const extracted = {
      text: pages.join("\n\n"),
      title,
      created: pdfDate(infoDict.CreationDate) ?? isoDate(dc.createdate),
      extra: {
        pdf: pdfNs,
        ...(Object.keys(dc).length > 0 ? { xmp: dc } : {}),
        ...(typeof infoDict.Author === "string" ? { dc: { creator: infoDict.Author } } : {}),
      },
    };
    return { extracted, attachments: await attachmentsOf(pdf) };
  } finally {
    // Destroying (not just cleaning up) lets the in-thread pdf.js worker drop the document and
    // its bytes now, instead of holding them until the next PDF replaces them.
    await pdf.loadingTask.destroy();
  }
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
