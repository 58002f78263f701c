/**
 * OLE compound files (`cfb` opens the container): the streams inside tell what the file is —
 * WordDocument → DOC (text with word-extractor), Workbook/Book → XLS, "PowerPoint Document" →
 * PPT, `__substg1.0_` property streams → Outlook MSG. The SummaryInformation property sets give
 * the title, author, dates and application of the Office formats.
 */
import * as CFB from "cfb";
import WordExtractor from "word-extractor";
import type { Limits } from "../budget.ts";
import { normaliseWhitespace, ParseFailure, type Recurse, type Typed } from "../result.ts";
import { type ArchiveEntry, describeArchive } from "./archive.ts";
import { printableStrings } from "./binary.ts";
import { extractMsg } from "./msg.ts";
import { embeddedObjects, hasMacros } from "./ole-embedded.ts";
import { summaryMetadata } from "./ole-properties.ts";
import { readPresentation } from "./ppt.ts";
import { readWorkbook } from "./xls.ts";

export const OLE_TYPES = {
  doc: "application/msword",
  xls: "application/vnd.ms-excel",
  ppt: "application/vnd.ms-powerpoint",
  msg: "application/vnd.ms-outlook",
} as const;

/** A stream directly under the root storage (embedded documents have streams of the same names deeper). */
const streamOf = (container: CFB.CFB$Container, name: string): Buffer | undefined => {
  const root = container.FullPaths[0] ?? "";
  const index = container.FullPaths.indexOf(root + name);
  const entry = index >= 0 ? container.FileIndex[index] : undefined;
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
  limits: Limits,
  recurse: Recurse,
): Promise<Typed> {
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

  const result = await readOffice(container, bytes, names, withMetadata, limits);
  return withEmbedded(result, container, depth, limits, recurse);
}

type WithMetadata = (type: string, text: string, office?: Record<string, unknown>) => Typed;

async function readOffice(
  container: CFB.CFB$Container,
  bytes: Buffer,
  names: Set<string>,
  withMetadata: WithMetadata,
  limits: Limits,
): Promise<Typed> {
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
    const { text, slides } = readPresentation(presentation, streamOf(container, "Current User"));
    return withMetadata(OLE_TYPES.ppt, text, { slides });
  }
  // Another OLE file (MSI, Visio, Works…): its stream names, metadata and printable strings.
  const other = withMetadata("application/x-cfb", printableStrings(bytes, limits.budget.charsLeft));
  return { ...other, extra: { ...other.extra, ole: { streams: [...names].sort() } } };
}

/** Adds the embedded objects (listed, their text read one level deeper) and the macro flag. */
async function withEmbedded(
  result: Typed,
  container: CFB.CFB$Container,
  depth: number,
  limits: Limits,
  recurse: Recurse,
): Promise<Typed> {
  const objects = embeddedObjects(container);
  const macros = hasMacros(container);
  if (objects.length === 0 && !macros) return result;
  const ole: Record<string, unknown> = { ...(result.extra.ole ?? {}) };
  if (macros) ole.macros = true;
  let text = result.text;
  if (objects.length > 0) {
    const entries: ArchiveEntry[] = [];
    let truncated: string | null = null;
    let total = 0;
    for (const o of objects) {
      if (entries.length >= limits.maxArchiveEntries) {
        truncated = `more than ${limits.maxArchiveEntries} embedded objects`;
        break;
      }
      const fits = total + o.bytes.length <= limits.maxArchiveBytes;
      if (fits) total += o.bytes.length;
      else truncated ??= `more than ${limits.maxArchiveBytes} bytes of embedded objects`;
      entries.push({ name: o.name, size: o.bytes.length, ...(fits ? { bytes: o.bytes } : {}) });
    }
    const described = await describeArchive({ entries, truncated }, depth, limits, recurse);
    const archive = described.extra.archive as { entries: unknown[]; truncated?: string };
    ole.embedded = archive.entries;
    if (archive.truncated) ole.embedded_truncated = archive.truncated;
    if (described.text.trim()) text = `${text}\n\n${described.text}`;
  }
  return { ...result, text, extra: { ...result.extra, ole } };
}
