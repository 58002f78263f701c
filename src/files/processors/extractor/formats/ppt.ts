/**
 * Legacy PowerPoint: the text atoms of the "PowerPoint Document" stream ([MS-PPT]).
 * Records are an 8-byte header (version/instance, type, length); containers (version 0xF) are
 * walked, TextCharsAtom (UTF-16) and TextBytesAtom (8-bit) hold the text. Master slides are
 * skipped: their placeholder prompts ("Click to edit…") are not the document's text.
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
const ENCRYPTION = 0x2f14;

export interface Presentation {
  text: string;
  slides: number;
}

export function readPresentation(stream: Buffer): Presentation {
  if (stream.length < 8) throw new ParseFailure("the PowerPoint Document stream is empty");
  const blocks: string[] = [];
  let slides = 0;
  let sawDocument = false;
  const walk = (start: number, end: number, depth: number, inSlideList: boolean) => {
    let at = start;
    while (at + 8 <= end) {
      const verInst = stream.readUInt16LE(at);
      const type = stream.readUInt16LE(at + 2);
      const len = stream.readUInt32LE(at + 4);
      const body = at + 8;
      const next = Math.min(body + len, end);
      if (type === ENCRYPTION) throw new ParseFailure("the presentation is encrypted");
      if (type === DOCUMENT) sawDocument = true;
      if (type === SLIDE_PERSIST_ATOM && inSlideList) slides++;
      if (type === TEXT_CHARS_ATOM) blocks.push(stream.toString("utf16le", body, next));
      else if (type === TEXT_BYTES_ATOM) blocks.push(stream.toString("latin1", body, next));
      else if ((verInst & 0x0f) === 0x0f && type !== MAIN_MASTER && depth < 32) {
        if (type === SLIDE || type === NOTES || type === SLIDE_LIST_WITH_TEXT) blocks.push("");
        // SlideListWithText instance 0 lists the slides (1: masters, 2: notes).
        walk(body, next, depth + 1, type === SLIDE_LIST_WITH_TEXT && verInst >> 4 === 0);
      }
      at = body + len;
    }
  };
  walk(0, stream.length, 0, false);
  if (!sawDocument) throw new ParseFailure("no DocumentContainer in the PowerPoint Document stream");
  // \r separates paragraphs and \v breaks lines inside PowerPoint text.
  // A lone "*" is the slide-number placeholder of notes and handout pages.
  const text = blocks
    .filter((b) => b.trim() !== "*")
    .join("\n")
    .replace(/[\r\v]/g, "\n");
  return { text, slides };
}
