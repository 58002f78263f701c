/**
 * OLE compound files (`cfb` opens the container): the streams inside tell what the file is —
 * WordDocument → DOC (text with word-extractor), Workbook/Book → XLS, "PowerPoint Document" →
 * PPT, `__substg1.0_` property streams → Outlook MSG. The SummaryInformation property sets give
 * the title, author, dates and application of the Office formats.
 */
import * as CFB from "cfb";
import WordExtractor from "word-extractor";
import { type Extracted, type ExtractLimits, normaliseWhitespace, ParseFailure } from "../result.ts";
import { printableStrings } from "./binary.ts";
import { extractMsg } from "./msg.ts";
import { summaryMetadata } from "./ole-properties.ts";
import { readPresentation } from "./ppt.ts";
import { readWorkbook } from "./xls.ts";

type Recurse = (bytes: Buffer, name: string, depth: number) => Promise<Extracted & { type: string }>;

export const OLE_TYPES = {
  doc: "application/msword",
  xls: "application/vnd.ms-excel",
  ppt: "application/vnd.ms-powerpoint",
  msg: "application/vnd.ms-outlook",
} as const;

const streamOf = (container: CFB.CFB$Container, name: string): Buffer | undefined => {
  const entry = container.FileIndex.find((e) => e.type === 2 && e.name === name);
  if (!entry?.content) return undefined;
  const c = entry.content as Uint8Array;
  return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
};

/** The streams directly under the root storage. */
function rootStreams(container: CFB.CFB$Container): Set<string> {
  const names = new Set<string>();
  for (const p of container.FullPaths) {
    const rest = p.slice(p.indexOf("/") + 1);
    if (rest && !rest.slice(0, -1).includes("/")) names.add(rest.replace(/\/$/, ""));
  }
  return names;
}

export async function extractOle(
  bytes: Buffer,
  depth: number,
  limits: ExtractLimits,
  recurse: Recurse,
): Promise<Extracted & { type: string }> {
  let container: CFB.CFB$Container;
  try {
    container = CFB.read(bytes, { type: "buffer" });
  } catch (err) {
    throw new ParseFailure(`not a readable OLE compound file: ${err instanceof Error ? err.message : err}`);
  }
  // A stream cannot hold more than the file: a size past it is damage (or a trap), and the
  // readers that trust it (msgreader, word-extractor) would allocate that much.
  const oversized = container.FileIndex.find((e) => e.type === 2 && e.size > bytes.length);
  if (oversized)
    throw new ParseFailure(
      `stream ${oversized.name} declares ${oversized.size} bytes in a ${bytes.length}-byte file`,
    );
  const names = rootStreams(container);
  if ([...names].some((n) => n.startsWith("__substg1.0_")) && names.has("__properties_version1.0"))
    return { type: OLE_TYPES.msg, ...(await extractMsg(bytes, depth, limits, recurse)) };

  const summary = summaryMetadata(
    streamOf(container, "\u0005SummaryInformation"),
    streamOf(container, "\u0005DocumentSummaryInformation"),
  );
  const withMetadata = (type: string, text: string, office: Record<string, unknown> = {}) => ({
    type,
    text: normaliseWhitespace(text),
    title: summary.title,
    created: summary.created,
    extra: {
      ...(Object.keys(summary.dc).length ? { dc: summary.dc } : {}),
      ...(Object.keys({ ...summary.office, ...office }).length
        ? { office: { ...summary.office, ...office } }
        : {}),
    },
  });

  if (names.has("WordDocument")) {
    let doc: Awaited<ReturnType<WordExtractor["extract"]>>;
    try {
      doc = await new WordExtractor().extract(bytes);
    } catch (err) {
      throw new ParseFailure(`unreadable Word document: ${err instanceof Error ? err.message : err}`);
    }
    const raw = { filterUnicode: false };
    const parts = [
      doc.getHeaders({ ...raw, includeFooters: false }),
      doc.getBody(raw),
      doc.getTextboxes(raw),
      doc.getFootnotes(raw),
      doc.getEndnotes(raw),
      doc.getAnnotations(raw),
      doc.getFooters(raw),
    ];
    return withMetadata(OLE_TYPES.doc, parts.filter((p) => p.trim()).join("\n\n"));
  }
  const workbook = streamOf(container, "Workbook") ?? streamOf(container, "Book");
  if (workbook) {
    const { text, sheetNames } = readWorkbook(workbook);
    return withMetadata(OLE_TYPES.xls, text, { sheets: sheetNames.length, sheet_names: sheetNames });
  }
  const presentation = streamOf(container, "PowerPoint Document");
  if (presentation) {
    const { text, slides } = readPresentation(presentation);
    return withMetadata(OLE_TYPES.ppt, text, { slides });
  }
  // Another OLE file (MSI, Visio, Works…): its stream names, metadata and printable strings.
  const other = withMetadata("application/x-cfb", printableStrings(bytes, limits.maxChars));
  return { ...other, extra: { ...other.extra, ole: { streams: [...names].sort() } } };
}
