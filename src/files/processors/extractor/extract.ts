/**
 * Detects what a file is from its content (magic bytes, then container inspection, then text
 * heuristics — never the name alone) and hands it to the extractor of its format.
 */
import { fileTypeFromBuffer } from "file-type";
import { withImageOcr, withPdfOcr } from "./backends/ocr.ts";
import { withTika } from "./backends/tika.ts";
import type { Limits } from "./budget.ts";
import { extractApk } from "./formats/apk.ts";
import { describeArchive, gunzipLimited, readTar, readZip } from "./formats/archive.ts";
import { extractBinary } from "./formats/binary.ts";
import { extractEmail, looksLikeEmail } from "./formats/email.ts";
import { extractEpub } from "./formats/epub.ts";
import { extractHtml } from "./formats/html.ts";
import { extractImage } from "./formats/image.ts";
import { extractMedia } from "./formats/media.ts";
import { extractOdf, extractOoxml } from "./formats/office.ts";
import { extractOle } from "./formats/ole.ts";
import { extractPdf } from "./formats/pdf.ts";
import { extractRtf, isRtf } from "./formats/rtf.ts";
import { readSevenZip, unpackStream } from "./formats/sevenzip.ts";
import { tar } from "./formats/tar-type.ts";
import { extractText, looksLikeText } from "./formats/text.ts";
import type { Extracted } from "./result.ts";

export type Typed = Extracted & { type: string };

const OOXML = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
} as const;

/**
 * Extracts one file (or archive entry) and charges its text to the budget. An archive's text is
 * made of its entries' texts, each charged already, so it is passed on as it is.
 */
export async function extractBytes(
  bytes: Buffer,
  name: string,
  depth: number,
  limits: Limits,
): Promise<Typed> {
  const out = await extractAny(bytes, name, depth, limits);
  return out.extra.archive ? out : { ...out, text: limits.budget.takeText(out.text) };
}

async function extractAny(bytes: Buffer, name: string, depth: number, limits: Limits): Promise<Typed> {
  const detected = await fileTypeFromBuffer(bytes);
  const mime = detected?.mime as string | undefined;
  const recurse = (b: Buffer, n: string, d: number) => extractBytes(b, n, d, limits);
  if (mime === "application/pdf")
    return {
      type: mime,
      ...(await withPdfOcr(bytes, limits.ocr, (ocrPage) => extractPdf(bytes, ocrPage, limits.budget))),
    };
  if (mime?.startsWith("image/") && mime !== "image/svg+xml")
    return { type: mime, ...(await withImageOcr(bytes, limits.ocr, extractImage)) };
  if (
    mime === "application/zip" ||
    mime?.startsWith("application/vnd.openxmlformats") ||
    mime?.startsWith("application/vnd.oasis.opendocument") ||
    mime === "application/epub+zip" ||
    mime === "application/java-archive" ||
    mime === "application/vnd.android.package-archive"
  ) {
    return extractZipFamily(bytes, mime, depth, limits, recurse);
  }
  if (mime === "application/gzip" || mime === "application/x-xz" || mime === "application/x-bzip2") {
    const { data, truncated } =
      mime === "application/gzip" ? gunzipLimited(bytes, limits) : await unpackStream(bytes, limits);
    const innerName = name.replace(/\.(gz|xz|bz2)$/i, "");
    // A compressed stream is a level of nesting like an archive: a gzip that unpacks to itself must end.
    const tooDeep = depth + 1 > limits.maxDepth ? `nesting deeper than ${limits.maxDepth}` : undefined;
    const stop = truncated ?? (tooDeep && limits.budget.stop(tooDeep));
    const inner = stop ? undefined : await extractBytes(data, innerName, depth + 1, limits);
    // The inner result's own archive facts are replaced by these: keep why it stopped, if it did.
    const why = stop ?? innerTruncation(inner);
    const archive = {
      entry_count: 1,
      entries: [{ name: innerName, size: data.length, type: inner?.type }],
      ...(why ? { truncated: why } : {}),
    };
    return { type: mime, text: inner?.text ?? "", extra: { ...(inner?.extra ?? {}), archive } };
  }
  if (mime === "application/x-tar" || tar(bytes)) {
    return {
      type: "application/x-tar",
      ...(await describeArchive(readTar(bytes, limits), depth, limits, recurse)),
    };
  }
  if (
    mime === "application/x-7z-compressed" ||
    mime === "application/x-iso9660-image" ||
    mime === "application/vnd.ms-cab-compressed"
  ) {
    const listing = await readSevenZip(bytes, limits);
    return { type: mime, ...(await describeArchive(listing, depth, limits, recurse)) };
  }
  if (mime === "application/rtf" || isRtf(bytes)) return { type: "application/rtf", ...extractRtf(bytes) };
  if (mime === "application/x-cfb") return extractOle(bytes, depth, limits, recurse);
  if (mime?.startsWith("audio/") || mime?.startsWith("video/"))
    return { type: mime, ...(await extractMedia(bytes, mime)) };
  if (mime) return withTika(bytes, mime, limits.tika, () => extractBinary(bytes, limits.budget.charsLeft));
  return extractUntyped(bytes, depth, limits, recurse);
}

function innerTruncation(inner: Typed | undefined): string | undefined {
  const archive = inner?.extra?.archive as { truncated?: unknown } | undefined;
  return typeof archive?.truncated === "string" ? archive.truncated : undefined;
}

async function extractZipFamily(
  bytes: Buffer,
  mime: string,
  depth: number,
  limits: Limits,
  recurse: (b: Buffer, n: string, d: number) => Promise<Typed>,
): Promise<Typed> {
  const { files, listing } = readZip(bytes, limits);
  if (files["word/document.xml"]) return { type: OOXML.docx, ...(await extractOoxml(files, bytes, "docx")) };
  if (files["xl/workbook.xml"]) return { type: OOXML.xlsx, ...(await extractOoxml(files, bytes, "xlsx")) };
  if (files["ppt/presentation.xml"])
    return { type: OOXML.pptx, ...(await extractOoxml(files, bytes, "pptx")) };
  const odfType = files.mimetype ? Buffer.from(files.mimetype).toString("ascii").trim() : "";
  if (odfType.startsWith("application/vnd.oasis.opendocument"))
    return { type: odfType, ...extractOdf(files) };
  if (files["AndroidManifest.xml"] && files["classes.dex"])
    return { type: "application/vnd.android.package-archive", ...extractApk(files, listing) };
  if (odfType === "application/epub+zip" || mime === "application/epub+zip") {
    return { type: "application/epub+zip", ...extractEpub(files) };
  }
  return { type: "application/zip", ...(await describeArchive(listing, depth, limits, recurse)) };
}

async function extractUntyped(
  bytes: Buffer,
  depth: number,
  limits: Limits,
  recurse: (b: Buffer, n: string, d: number) => Promise<Typed>,
): Promise<Typed> {
  if (!looksLikeText(bytes))
    return withTika(bytes, "application/octet-stream", limits.tika, () =>
      extractBinary(bytes, limits.budget.charsLeft),
    );
  // Before HTML: a saved message's body is often HTML, its header block says what it is.
  if (looksLikeEmail(bytes))
    return { type: "message/rfc822", ...(await extractEmail(bytes, depth, limits, recurse)) };
  const head = bytes.subarray(0, 2048).toString("latin1");
  if (/<!doctype html|<html[\s>]/i.test(head)) return { type: "text/html", ...extractHtml(bytes) };
  const text = extractText(bytes, limits.budget.charsLeft);
  const trimmed = text.text.trimStart();
  if (/^<\?xml/.test(trimmed)) {
    const isXhtml = /<html[\s>]/i.test(trimmed.slice(0, 4096));
    if (isXhtml) return { type: "application/xhtml+xml", ...extractHtml(bytes) };
    return { type: "application/xml", text: trimmed.replace(/<[^>]+>/g, " "), extra: text.extra };
  }
  if (/^[[{]/.test(trimmed)) {
    try {
      JSON.parse(text.text);
      return { type: "application/json", ...text };
    } catch {
      // Not JSON after all: plain text.
    }
  }
  if (/^[^,\n]+(,[^,\n]*){2,}\n[^,\n]*(,[^,\n]*){2,}/.test(trimmed)) return { type: "text/csv", ...text };
  return { type: "text/plain", ...text };
}
