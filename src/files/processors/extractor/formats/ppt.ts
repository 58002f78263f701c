/**
 * Legacy PowerPoint ([MS-PPT]): records are an 8-byte header (version/instance, type, length);
 * containers (version 0xF) nest, TextCharsAtom (UTF-16) and TextBytesAtom (8-bit) hold the text.
 *
 * The current version of each slide is found the way PowerPoint finds it: the "Current User"
 * stream points at the last UserEditAtom, whose chain of persist directories maps persist ids to
 * offsets (a newer edit overrides an older one — files saved with "fast save" keep superseded
 * slides in the stream). The document's SlideListWithText gives the slides in order, with their
 * placeholder text; each slide's own drawing gives the text of its other shapes; notes follow.
 * A stream without a usable persist directory is walked record by record instead. Master slides
 * are never read: their prompts ("Click to edit…") are not the document's text.
 */
import { ParseFailure } from "../result.ts";

const TEXT_CHARS_ATOM = 0x0fa0;
const TEXT_BYTES_ATOM = 0x0fa8;
const SLIDE = 0x03ee;
const NOTES = 0x03f0;
const MAIN_MASTER = 0x03f8;
const SLIDE_LIST_WITH_TEXT = 0x0ff0;
const SLIDE_PERSIST_ATOM = 0x03f3;
const DOCUMENT = 0x03e8;
const USER_EDIT_ATOM = 0x0ff5;
const PERSIST_DIRECTORY_ATOM = 0x1772;
const CURRENT_USER_ATOM = 0x0ff6;
const ENCRYPTION = 0x2f14;
const MAX_DEPTH = 32;

export interface Presentation {
  text: string;
  slides: number;
}

interface RecordHeader {
  instance: number;
  container: boolean;
  type: number;
  body: number;
  end: number;
}

function header(stream: Buffer, at: number, limit = stream.length): RecordHeader | null {
  if (at < 0 || at + 8 > limit) return null;
  const verInst = stream.readUInt16LE(at);
  const body = at + 8;
  return {
    instance: verInst >> 4,
    container: (verInst & 0x0f) === 0x0f,
    type: stream.readUInt16LE(at + 2),
    body,
    end: Math.min(body + stream.readUInt32LE(at + 4), limit),
  };
}

/** The text atoms under a record range, in order, skipping master slides. */
function collectText(stream: Buffer, start: number, end: number, out: string[], depth = 0): void {
  let at = start;
  while (at + 8 <= end) {
    const h = header(stream, at, end) as RecordHeader;
    if (h.type === ENCRYPTION) throw new ParseFailure("the presentation is encrypted");
    if (h.type === TEXT_CHARS_ATOM) out.push(stream.toString("utf16le", h.body, h.end));
    else if (h.type === TEXT_BYTES_ATOM) out.push(stream.toString("latin1", h.body, h.end));
    else if (h.container && h.type !== MAIN_MASTER && depth < MAX_DEPTH) {
      if (h.type === SLIDE || h.type === NOTES || h.type === SLIDE_LIST_WITH_TEXT) out.push("");
      collectText(stream, h.body, h.end, out, depth + 1);
    }
    at = h.end > at ? h.end : at + 8;
  }
}

/** persist id → stream offset, newest edit first; null when the edit chain is unusable. */
function persistDirectory(
  stream: Buffer,
  currentUser: Buffer,
): { offsets: Map<number, number>; document: number } | null {
  const cu = header(currentUser, 0);
  if (!cu || cu.type !== CURRENT_USER_ATOM || cu.body + 12 > currentUser.length) return null;
  let edit = currentUser.readUInt32LE(cu.body + 8);
  const offsets = new Map<number, number>();
  const seen = new Set<number>();
  let documentRef: number | null = null;
  while (edit > 0 && !seen.has(edit)) {
    seen.add(edit);
    const h = header(stream, edit);
    if (!h || h.type !== USER_EDIT_ATOM || h.body + 20 > stream.length) return null;
    documentRef ??= stream.readUInt32LE(h.body + 16);
    const dir = header(stream, stream.readUInt32LE(h.body + 12));
    if (!dir || dir.type !== PERSIST_DIRECTORY_ATOM) return null;
    for (let at = dir.body; at + 4 <= dir.end; ) {
      const entry = stream.readUInt32LE(at);
      const first = entry & 0xfffff;
      const count = entry >>> 20;
      at += 4;
      for (let k = 0; k < count && at + 4 <= dir.end; k++, at += 4) {
        if (!offsets.has(first + k)) offsets.set(first + k, stream.readUInt32LE(at));
      }
    }
    edit = stream.readUInt32LE(h.body + 8);
  }
  const document = documentRef === null ? undefined : offsets.get(documentRef);
  return document === undefined ? null : { offsets, document };
}

/** Slides (or notes) as listed by the document: each one's list text, then its own drawing's text. */
function listedPages(stream: Buffer, list: RecordHeader, offsets: Map<number, number>): string[][] {
  const pages: Array<{ listed: string[]; own: string[] }> = [];
  for (let at = list.body; at + 8 <= list.end; ) {
    const h = header(stream, at, list.end) as RecordHeader;
    const current = pages.at(-1);
    if (h.type === SLIDE_PERSIST_ATOM && h.body + 4 <= h.end) {
      const page = { listed: [] as string[], own: [] as string[] };
      pages.push(page);
      const offset = offsets.get(stream.readUInt32LE(h.body));
      const container = offset === undefined ? null : header(stream, offset);
      if (container && (container.type === SLIDE || container.type === NOTES))
        collectText(stream, container.body, container.end, page.own);
    } else if (current && h.type === TEXT_CHARS_ATOM)
      current.listed.push(stream.toString("utf16le", h.body, h.end));
    else if (current && h.type === TEXT_BYTES_ATOM)
      current.listed.push(stream.toString("latin1", h.body, h.end));
    at = h.end > at ? h.end : at + 8;
  }
  return pages.map((p) => [...p.listed, ...p.own]);
}

function readCurrent(stream: Buffer, currentUser: Buffer): Presentation | null {
  const persist = persistDirectory(stream, currentUser);
  if (!persist) return null;
  const doc = header(stream, persist.document);
  if (!doc || doc.type !== DOCUMENT) return null;
  let slides: string[][] = [];
  let notes: string[][] = [];
  for (let at = doc.body; at + 8 <= doc.end; ) {
    const h = header(stream, at, doc.end) as RecordHeader;
    if (h.type === SLIDE_LIST_WITH_TEXT && h.instance === 0) slides = listedPages(stream, h, persist.offsets);
    if (h.type === SLIDE_LIST_WITH_TEXT && h.instance === 2) notes = listedPages(stream, h, persist.offsets);
    at = h.end > at ? h.end : at + 8;
  }
  const blocks = [...slides, ...notes].map((page) => page.filter((t) => t.trim() !== "*").join("\n"));
  return { text: tidy(blocks.join("\n\n")), slides: slides.length };
}

// \r separates paragraphs and \v breaks lines inside PowerPoint text.
const tidy = (text: string) => text.replace(/[\r\v]/g, "\n");

export function readPresentation(stream: Buffer, currentUser?: Buffer): Presentation {
  if (stream.length < 8) throw new ParseFailure("the PowerPoint Document stream is empty");
  // CurrentUserAtom.headerToken says whether the document is encrypted.
  if (currentUser && currentUser.length >= 16 && currentUser.readUInt32LE(12) === 0xf3d1c4df)
    throw new ParseFailure("the presentation is encrypted");
  const current = currentUser ? readCurrent(stream, currentUser) : null;
  if (current) return current;
  // No usable edit chain: every text atom in stream order.
  let sawDocument = false;
  let slides = 0;
  for (let at = 0; at + 8 <= stream.length; ) {
    const h = header(stream, at) as RecordHeader;
    if (h.type === DOCUMENT) {
      sawDocument = true;
      for (let inner = h.body; inner + 8 <= h.end; ) {
        const list = header(stream, inner, h.end) as RecordHeader;
        if (list.type === SLIDE_LIST_WITH_TEXT && list.instance === 0) {
          for (let p = list.body; p + 8 <= list.end; ) {
            const atom = header(stream, p, list.end) as RecordHeader;
            if (atom.type === SLIDE_PERSIST_ATOM) slides++;
            p = atom.end > p ? atom.end : p + 8;
          }
        }
        inner = list.end > inner ? list.end : inner + 8;
      }
    }
    at = h.end > at ? h.end : at + 8;
  }
  if (!sawDocument) throw new ParseFailure("no DocumentContainer in the PowerPoint Document stream");
  const blocks: string[] = [];
  collectText(stream, 0, stream.length, blocks);
  return { text: tidy(blocks.filter((b) => b.trim() !== "*").join("\n")), slides };
}
