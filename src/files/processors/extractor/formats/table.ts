/**
 * Every format the extractor knows, in the order it is tried: one row each, `detect` then
 * `extract`. Detection uses the magic-byte type computed once (`mime`), then container
 * inspection, then text heuristics — never the name alone. Adding a format is adding a row
 * (docs/extraction.md, "Adding a format").
 */
import { withImageOcr, withPdfOcr } from "../backends/ocr.ts";
import { withTika } from "../backends/tika.ts";
import type { Limits } from "../budget.ts";
import type { Recurse, Typed } from "../result.ts";
import { extractApk } from "./apk.ts";
import { describeArchive, gunzipLimited, readTar, readZip } from "./archive.ts";
import { extractBinary } from "./binary.ts";
import { listedChildren, withChildren } from "./children.ts";
import { extractEmail, looksLikeEmail } from "./email.ts";
import { extractEpub } from "./epub.ts";
import { extractHtml } from "./html.ts";
import { extractImage } from "./image.ts";
import { extractMedia } from "./media.ts";
import { extractOdf, extractOoxml } from "./office.ts";
import { extractOle } from "./ole.ts";
import { extractPdf } from "./pdf.ts";
import { extractRtf, isRtf } from "./rtf.ts";
import { rtfObjects } from "./rtf-objects.ts";
import { readSevenZip, unpackStream } from "./sevenzip.ts";
import { tar } from "./tar-type.ts";
import { extractText, looksLikeText } from "./text.ts";

/** One file (or archive entry) being extracted, with its magic-byte type found once. */
export interface Input {
  bytes: Buffer;
  name: string;
  /** What file-type found from the magic bytes, or undefined when nothing matched. */
  mime: string | undefined;
  depth: number;
  limits: Limits;
  recurse: Recurse;
  /** Where these bytes are on disk, when they are (the upload, a child taken out). */
  file?: string | undefined;
}

export interface Format {
  /** A short name for docs, tests and the order of the table. */
  name: string;
  detect(input: Input): boolean;
  extract(input: Input): Promise<Typed>;
}

const ZIP_FAMILY = new Set([
  "application/zip",
  "application/epub+zip",
  "application/java-archive",
  "application/vnd.android.package-archive",
]);
const COMPRESSED_STREAMS = new Set(["application/gzip", "application/x-xz", "application/x-bzip2"]);
const SEVEN_ZIP_READS = new Set([
  "application/x-7z-compressed",
  "application/x-iso9660-image",
  "application/vnd.ms-cab-compressed",
]);
const isMedia = (mime: string | undefined) =>
  !!mime && (mime.startsWith("audio/") || mime.startsWith("video/"));
const binaryText = ({ bytes, limits }: Input) => extractBinary(bytes, limits.budget.charsLeft);

export const FORMATS: readonly Format[] = [
  {
    name: "pdf",
    detect: ({ mime }) => mime === "application/pdf",
    extract: async ({ bytes, depth, limits, recurse, file }) => {
      let attachments: Array<{ name: string; bytes: Buffer }> = [];
      const out = await withPdfOcr(bytes, limits.ocr, async (ocrPage) => {
        const read = await extractPdf(bytes, {
          ocrPage,
          budget: limits.budget,
          memoryMb: limits.memoryMb,
          file,
        });
        attachments = read.attachments;
        return read.extracted;
      });
      const listing = listedChildren(attachments, limits);
      return withChildren(
        { type: "application/pdf", ...out },
        listing,
        "attachments",
        depth,
        limits,
        recurse,
      );
    },
  },
  {
    name: "image",
    detect: ({ mime }) => !!mime?.startsWith("image/") && mime !== "image/svg+xml",
    extract: async ({ bytes, mime, limits }) => ({
      type: mime as string,
      ...(await withImageOcr(bytes, limits.ocr, extractImage)),
    }),
  },
  {
    name: "zip family (OOXML, ODF, APK, EPUB, JAR, ZIP)",
    detect: ({ mime }) =>
      !!mime &&
      (ZIP_FAMILY.has(mime) ||
        mime.startsWith("application/vnd.openxmlformats") ||
        mime.startsWith("application/vnd.oasis.opendocument")),
    extract: extractZipFamily,
  },
  {
    name: "compressed stream (gzip, xz, bzip2)",
    detect: ({ mime }) => !!mime && COMPRESSED_STREAMS.has(mime),
    extract: extractCompressedStream,
  },
  {
    name: "tar",
    detect: ({ mime, bytes }) => mime === "application/x-tar" || tar(bytes),
    extract: async ({ bytes, depth, limits, recurse }) => ({
      type: "application/x-tar",
      ...(await describeArchive(readTar(bytes, limits), depth, limits, recurse)),
    }),
  },
  {
    name: "7z, ISO 9660, CAB",
    detect: ({ mime }) => !!mime && SEVEN_ZIP_READS.has(mime),
    extract: async ({ bytes, mime, depth, limits, recurse }) => ({
      type: mime as string,
      ...(await describeArchive(await readSevenZip(bytes, limits), depth, limits, recurse)),
    }),
  },
  {
    name: "rtf",
    detect: ({ mime, bytes }) => mime === "application/rtf" || isRtf(bytes),
    extract: async ({ bytes, depth, limits, recurse }) => {
      const objects = listedChildren(rtfObjects(bytes, limits.budget.bytesLeft), limits);
      return withChildren(
        { type: "application/rtf", ...extractRtf(bytes) },
        objects,
        "objects",
        depth,
        limits,
        recurse,
      );
    },
  },
  {
    name: "ole (DOC, XLS, PPT, MSG)",
    detect: ({ mime }) => mime === "application/x-cfb",
    extract: ({ bytes, depth, limits, recurse }) => extractOle(bytes, depth, limits, recurse),
  },
  {
    name: "audio and video",
    detect: ({ mime }) => isMedia(mime),
    extract: async ({ bytes, mime }) => ({
      type: mime as string,
      ...(await extractMedia(bytes, mime as string)),
    }),
  },
  {
    // file-type knows XML by its declaration: its text is read, not its strings.
    name: "xml",
    detect: ({ mime }) => mime === "application/xml" || mime === "text/xml",
    extract: extractTextFamily,
  },
  {
    name: "other known binary (Tika when configured, else strings)",
    detect: ({ mime }) => mime !== undefined,
    extract: (input) =>
      withTika(input.bytes, input.mime as string, input.limits.tika, () => binaryText(input)),
  },
  {
    name: "untyped binary",
    detect: ({ bytes }) => !looksLikeText(bytes),
    extract: (input) =>
      withTika(input.bytes, "application/octet-stream", input.limits.tika, () => binaryText(input)),
  },
  {
    // Before HTML: a saved message's body is often HTML, its header block says what it is.
    name: "e-mail",
    detect: ({ bytes }) => looksLikeEmail(bytes),
    extract: async ({ bytes, depth, limits, recurse }) => ({
      type: "message/rfc822",
      ...(await extractEmail(bytes, depth, limits, recurse)),
    }),
  },
  {
    name: "html",
    detect: ({ bytes }) => /<!doctype html|<html[\s>]/i.test(bytes.subarray(0, 2048).toString("latin1")),
    extract: async ({ bytes }) => ({ type: "text/html", ...extractHtml(bytes) }),
  },
  { name: "text (XML, JSON, CSV, plain)", detect: () => true, extract: extractTextFamily },
];

/** The first row whose `detect` says yes (the last row takes everything). */
export function formatOf(input: Input): Format {
  return FORMATS.find((f) => f.detect(input)) as Format;
}

async function extractCompressedStream(input: Input): Promise<Typed> {
  const { bytes, name, depth, limits, recurse } = input;
  const mime = input.mime as string;
  const { data, truncated } =
    mime === "application/gzip" ? await gunzipLimited(bytes, limits) : await unpackStream(bytes, limits);
  const innerName = name.replace(/\.(gz|xz|bz2)$/i, "");
  // A compressed stream is a level of nesting like an archive: a gzip that unpacks to itself must end.
  const tooDeep = depth + 1 > limits.maxDepth ? `nesting deeper than ${limits.maxDepth}` : undefined;
  const stop = truncated ?? (tooDeep && limits.budget.stop(tooDeep));
  if (tooDeep) recurse.skipped?.(innerName, data.length || null, "limit", tooDeep);
  // A stream cut at the bytes budget still has its head read; the stream's node says it was cut.
  else if (truncated) recurse.cut?.(truncated);
  const inner = tooDeep ? undefined : await recurse(data, innerName, depth + 1);
  // The inner result's own archive facts are replaced by these: keep why it stopped, if it did.
  const why = stop ?? innerTruncation(inner);
  const archive = {
    entry_count: 1,
    entries: [{ name: innerName, size: data.length, type: inner?.type }],
    ...(why ? { truncated: why } : {}),
  };
  return { type: mime, text: inner?.text ?? "", extra: { ...(inner?.extra ?? {}), archive } };
}

function innerTruncation(inner: Typed | undefined): string | undefined {
  const archive = inner?.extra?.archive as { truncated?: unknown } | undefined;
  return typeof archive?.truncated === "string" ? archive.truncated : undefined;
}

/** A ZIP's entries, read once, and what its `mimetype` member declares (ODF, EPUB). */
interface ZipInput extends Input {
  files: ReturnType<typeof readZip>["files"];
  listing: ReturnType<typeof readZip>["listing"];
  declared: string;
}

const OOXML = [
  {
    part: "word/document.xml",
    kind: "docx",
    type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  },
  {
    part: "xl/workbook.xml",
    kind: "xlsx",
    type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  },
  {
    part: "ppt/presentation.xml",
    kind: "pptx",
    type: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  },
] as const;

/** The ZIP family's own table: the members inside tell what the container is. */
const ZIP_FORMATS: readonly {
  name: string;
  detect(z: ZipInput): boolean;
  extract(z: ZipInput): Promise<Typed>;
}[] = [
  ...OOXML.map((o) => ({
    name: o.kind,
    detect: (z: ZipInput) => !!z.files[o.part],
    extract: async (z: ZipInput) =>
      withMembers({ type: o.type, ...(await extractOoxml(z.files, z.bytes, o.kind)) }, z, OOXML_CHILDREN),
  })),
  {
    name: "odf",
    detect: (z) => z.declared.startsWith("application/vnd.oasis.opendocument"),
    extract: async (z) => withMembers({ type: z.declared, ...extractOdf(z.files) }, z, ODF_CHILDREN),
  },
  {
    name: "apk",
    detect: (z) => !!z.files["AndroidManifest.xml"] && !!z.files["classes.dex"],
    extract: async (z) => ({
      type: "application/vnd.android.package-archive",
      ...extractApk(z.files, z.listing),
    }),
  },
  {
    name: "epub",
    detect: (z) => z.declared === "application/epub+zip" || z.mime === "application/epub+zip",
    extract: async (z) => ({ type: "application/epub+zip", ...extractEpub(z.files) }),
  },
  {
    name: "zip",
    detect: () => true,
    extract: async (z) => ({
      type: "application/zip",
      ...(await describeArchive(z.listing, z.depth, z.limits, z.recurse)),
    }),
  },
];

/** The members of an OOXML file that are files of their own: embedded objects and the VBA project. */
const OOXML_CHILDREN = /^(?:word|xl|ppt)\/(?:embeddings\/[^/]+|vbaProject\.bin)$/;
/** ODF: embedded OLE objects (`Object 1`) and files under `Basic/` and `Scripts/`. */
const ODF_CHILDREN = /^(?:Object \d+|(?:Basic|Scripts)\/.+[^/])$/;

/** An office file's members that are files of their own, read one level deeper (extra.embedded). */
function withMembers(out: Typed, z: ZipInput, pattern: RegExp): Promise<Typed> {
  const entries = z.listing.entries.filter((e) => pattern.test(e.name));
  return withChildren(out, { entries, truncated: null }, "embedded", z.depth, z.limits, z.recurse);
}

async function extractZipFamily(input: Input): Promise<Typed> {
  const { files, listing } = readZip(input.bytes, input.limits);
  const declared = files.mimetype ? Buffer.from(files.mimetype).toString("ascii").trim() : "";
  const zip: ZipInput = { ...input, files, listing, declared };
  const format = ZIP_FORMATS.find((f) => f.detect(zip)) as (typeof ZIP_FORMATS)[number];
  return format.extract(zip);
}

async function extractTextFamily({ bytes, limits }: Input): Promise<Typed> {
  const text = extractText(bytes, limits.budget.charsLeft);
  const trimmed = text.text.trimStart();
  if (/^<\?xml/.test(trimmed)) {
    const isXhtml = /<html[\s>]/i.test(trimmed.slice(0, 4096));
    if (isXhtml) return { type: "application/xhtml+xml", ...extractHtml(bytes) };
    return { type: "application/xml", text: trimmed.replace(/<[^>]+>/g, " "), extra: text.extra };
  }
  if (/^[[{]/.test(trimmed) && parsesAsJson(text.text)) return { type: "application/json", ...text };
  if (/^[^,\n]+(,[^,\n]*){2,}\n[^,\n]*(,[^,\n]*){2,}/.test(trimmed)) return { type: "text/csv", ...text };
  return { type: "text/plain", ...text };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
