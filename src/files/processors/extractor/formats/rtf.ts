/**
 * RTF: one pass over the control words and groups. Text of the body, headers, footers and
 * footnotes; destinations that hold no readable text (font and colour tables, style sheets,
 * pictures, embedded object data, every `{\*\…}` group) are skipped. `\uN` gives Unicode,
 * `\'hh` a byte in the code page of `\ansicpg` (or of the current font's `\fcharset`).
 * The `\info` group gives the title, author and dates.
 */
import { TextDecoder } from "node:util";
import { type Extracted, isoDate, normaliseWhitespace, ParseFailure } from "../result.ts";

/** Destinations whose content is not document text. */
const SKIPPED = new Set([
  "fonttbl",
  "colortbl",
  "stylesheet",
  "listtable",
  "listoverridetable",
  "revtbl",
  "rsidtbl",
  "pict",
  "objdata",
  "themedata",
  "colorschememapping",
  "datastore",
  "latentstyles",
  "xmlnstbl",
  "generator",
  "filetbl",
  "fldinst",
  "shpinst",
  "nonshppict",
  "private",
]);

/** `{\*\…}` destinations that do hold document text. */
const STARRED_TEXT = new Set(["footnote", "annotation"]);

const INFO_TEXT: Record<string, [string, string]> = {
  title: ["dc", "title"],
  subject: ["dc", "subject"],
  author: ["dc", "creator"],
  operator: ["dc", "last_modified_by"],
  keywords: ["dc", "keywords"],
  doccomm: ["dc", "description"],
  company: ["office", "company"],
  manager: ["office", "manager"],
  category: ["office", "category"],
};
const INFO_DATES: Record<string, string> = { creatim: "created", revtim: "modified", printim: "printed" };

/** Windows code page of a font's \fcharset (only those that differ from ANSI). */
const CHARSET_CODEPAGE: Record<number, number> = {
  128: 932,
  129: 949,
  134: 936,
  136: 950,
  161: 1253,
  162: 1254,
  163: 1258,
  177: 1255,
  178: 1256,
  186: 1257,
  204: 1251,
  222: 874,
  238: 1250,
};

const SYMBOLS: Record<string, string> = {
  par: "\n",
  line: "\n",
  sect: "\n\n",
  page: "\n\n",
  row: "\n",
  cell: "\t",
  tab: "\t",
  emdash: "—",
  endash: "–",
  lquote: "‘",
  rquote: "’",
  ldblquote: "“",
  rdblquote: "”",
  bullet: "•",
  emspace: " ",
  enspace: " ",
};

interface GroupState {
  skip: boolean;
  /** Characters to drop after a \uN (the ANSI fallback). */
  uc: number;
  font: number;
  /** Name of the \info sub-destination being read (title, creatim…), if any. */
  info: string | null;
  inInfo: boolean;
  fontTable: boolean;
}

const decoders = new Map<number, TextDecoder>();
function decoderFor(codepage: number): TextDecoder {
  let d = decoders.get(codepage);
  if (!d) {
    try {
      d = new TextDecoder(codepage === 65001 ? "utf-8" : `windows-${codepage}`);
    } catch {
      try {
        d = new TextDecoder(
          { 932: "shift_jis", 936: "gbk", 949: "euc-kr", 950: "big5", 10000: "macintosh" }[codepage] ??
            "windows-1252",
        );
      } catch {
        d = new TextDecoder("windows-1252");
      }
    }
    decoders.set(codepage, d);
  }
  return d;
}

export function isRtf(bytes: Buffer): boolean {
  return bytes.subarray(0, 5).toString("latin1") === "{\\rtf";
}

const isLetter = (b: number | undefined) =>
  b !== undefined && ((b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a));

/** The parser's state over one document: the tokens are read by `run`, one method per kind. */
class RtfReader {
  ansiCodepage = 1252;
  readonly fontCodepage = new Map<number, number>();
  fontTableCurrent = -1;
  readonly out: string[] = [];
  pendingBytes: number[] = [];
  readonly info: Record<string, string> = {};
  readonly infoDates: Record<string, Record<string, number>> = {};
  state: GroupState = { skip: false, uc: 1, font: -1, info: null, inInfo: false, fontTable: false };
  readonly stack: GroupState[] = [];
  skipChars = 0;
  starred = false; // the previous token was \* opening a group
  groupStarted = false; // the previous token opened a group: the next control word may name a destination
  depth = 0;
  captured = 0;
  i = 0;

  private readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  private codepage(): number {
    return this.fontCodepage.get(this.state.font) ?? this.ansiCodepage;
  }

  private emit(s: string): void {
    if (this.state.info) this.info[this.state.info] = (this.info[this.state.info] ?? "") + s;
    else if (!this.state.skip) this.out.push(s);
  }

  flushBytes(): void {
    if (this.pendingBytes.length === 0) return;
    const text = decoderFor(this.codepage()).decode(Uint8Array.from(this.pendingBytes));
    this.pendingBytes = [];
    this.emit(text);
  }

  run(): void {
    const { bytes } = this;
    const n = bytes.length;
    while (this.i < n) {
      const c = bytes[this.i] as number;
      if (c === 0x7b /* { */) this.openGroup();
      else if (c === 0x7d /* } */) {
        if (!this.closeGroup()) break; // the closing brace of the document
      } else if (c === 0x5c /* \ */) {
        const next = bytes[this.i + 1];
        if (next === undefined) break;
        if (isLetter(next)) this.controlWord();
        else this.controlSymbol(next);
      } else if (c === 0x0d || c === 0x0a)
        this.i++; // line breaks in the source are not text
      else this.plainText(c);
    }
  }

  private openGroup(): void {
    this.flushBytes();
    this.stack.push(this.state);
    this.state = { ...this.state };
    this.depth++;
    this.groupStarted = true;
    this.i++;
  }

  private closeGroup(): boolean {
    this.flushBytes();
    const prev = this.stack.pop();
    if (!prev) return false;
    this.state = prev;
    this.depth--;
    this.groupStarted = false;
    this.i++;
    return true;
  }

  private controlSymbol(next: number): void {
    const wasGroupStart = this.groupStarted;
    this.groupStarted = false;
    if (next === 0x27 /* ' */) {
      const hex = this.bytes.toString("latin1", this.i + 2, this.i + 4);
      this.i += 4;
      if (this.skipChars > 0) {
        this.skipChars--;
        return;
      }
      const b = Number.parseInt(hex, 16);
      if (!Number.isNaN(b)) this.pendingBytes.push(b);
      return;
    }
    this.flushBytes();
    this.i += 2;
    if (next === 0x2a /* * */) {
      if (wasGroupStart) {
        this.state.skip = true;
        this.starred = true;
        this.groupStarted = true; // the destination's word follows
      }
      return;
    }
    if (this.skipChars > 0) {
      this.skipChars--;
      return;
    }
    if (next === 0x7e /* ~ */) this.emit("\u00a0");
    else if (next === 0x5f /* _ */) this.emit("-");
    else if (next === 0x0a || next === 0x0d) this.emit("\n");
    else if (next === 0x5c || next === 0x7b || next === 0x7d) this.emit(String.fromCharCode(next));
    // \- (optional hyphen), \: (index subentry) and others print nothing.
  }

  private controlWord(): void {
    const { bytes } = this;
    const n = bytes.length;
    let j = this.i + 1;
    while (j < n && isLetter(bytes[j])) j++;
    const word = bytes.toString("latin1", this.i + 1, j);
    let k = j;
    if (bytes[k] === 0x2d /* - */) k++;
    while (k < n && (bytes[k] as number) >= 0x30 && (bytes[k] as number) <= 0x39) k++;
    const param = k > j ? Number.parseInt(bytes.toString("latin1", j, k), 10) : null;
    if (bytes[k] === 0x20) k++; // the space that ends a control word belongs to it
    this.i = k;
    const wasGroupStart = this.groupStarted;
    const wasStarred = this.starred;
    this.groupStarted = false;
    this.starred = false;
    if (wasStarred && STARRED_TEXT.has(word) && !this.stack.at(-1)?.skip) this.state.skip = false;
    if (word === "bin") {
      this.i += Math.max(0, param ?? 0); // binary data: nothing to read
      return;
    }
    if (word !== "u" && this.skipChars > 0) {
      this.skipChars--;
      return;
    }
    if (word === "u" && param !== null) {
      this.flushBytes();
      this.emit(String.fromCharCode(param < 0 ? param + 65536 : param));
      this.skipChars = this.state.uc;
      return;
    }
    this.flushBytes();
    if (!this.formattingWord(word, param)) this.destinationWord(word, param, wasGroupStart);
  }

  /** Code page, Unicode skip count and font words; false when `word` is none of them. */
  private formattingWord(word: string, param: number | null): boolean {
    const { state } = this;
    if (word === "ansicpg" && param !== null && param > 0) this.ansiCodepage = param;
    else if (word === "uc" && param !== null) state.uc = Math.max(0, param);
    else if (word === "f" && param !== null) {
      if (state.fontTable) this.fontTableCurrent = param;
      else state.font = param;
    } else if (word === "fcharset" && param !== null && state.fontTable) {
      const cp = CHARSET_CODEPAGE[param];
      if (cp && this.fontTableCurrent >= 0) this.fontCodepage.set(this.fontTableCurrent, cp);
    } else return false;
    return true;
  }

  private destinationWord(word: string, param: number | null, wasGroupStart: boolean): void {
    const { state, info } = this;
    if (wasGroupStart && word === "fonttbl") {
      state.skip = true;
      state.fontTable = true;
    } else if (wasGroupStart && (word === "fldinst" || word === "objclass")) {
      // Not text, but what investigators look for: link targets, remote templates, OLE classes.
      state.skip = true;
      state.info = `${word}:${this.captured++}`;
      info[state.info] = "";
    } else if (wasGroupStart && SKIPPED.has(word)) state.skip = true;
    else if (wasGroupStart && word === "info") {
      state.skip = true;
      state.inInfo = true;
    } else if (state.inInfo && wasGroupStart && Object.hasOwn(INFO_TEXT, word)) {
      state.info = word;
      info[word] = ""; // a repeated item replaces the earlier one
    } else if (state.inInfo && wasGroupStart && Object.hasOwn(INFO_DATES, word)) {
      this.infoDates[word] = {};
      state.info = `date:${word}`;
    } else if (state.info?.startsWith("date:") && param !== null) {
      const target = this.infoDates[state.info.slice(5)];
      if (target) target[word] = param;
    } else if (Object.hasOwn(SYMBOLS, word) && !state.info) this.emit(SYMBOLS[word] as string);
  }

  private plainText(c: number): void {
    const { bytes } = this;
    this.groupStarted = false;
    if (this.skipChars > 0) {
      this.skipChars--;
      this.i++;
      return;
    }
    if (this.state.info?.startsWith("date:")) {
      this.i++;
      return;
    }
    // A run of plain text up to the next special character.
    const i = this.i;
    let j = i;
    while (j < bytes.length) {
      const b = bytes[j] as number;
      if (b === 0x5c || b === 0x7b || b === 0x7d || b === 0x0d || b === 0x0a) break;
      j++;
    }
    if (c >= 0x80) {
      for (let k = i; k < j; k++) this.pendingBytes.push(bytes[k] as number);
    } else {
      this.flushBytes();
      this.emit(bytes.toString("latin1", i, j));
    }
    this.i = j;
  }
}

/** The \info items, the captured field instructions and OLE classes, as `extra` and `created`. */
function rtfMetadata(reader: RtfReader): {
  extra: Record<string, Record<string, unknown>>;
  created: string | null;
} {
  const { info, infoDates } = reader;
  const extra: Record<string, Record<string, unknown>> = {};
  for (const [word, [ns, key]] of Object.entries(INFO_TEXT)) {
    const v = info[word]?.trim();
    if (v) extra[ns] = { ...extra[ns], [key]: v };
  }
  let created: string | null = null;
  for (const [word, key] of Object.entries(INFO_DATES)) {
    const d = infoDates[word];
    if (!d?.yr) continue; // LibreOffice writes \yr0 for dates it does not know
    const iso = isoDate(
      new Date(Date.UTC(d.yr, (d.mo ?? 1) - 1, d.dy ?? 1, d.hr ?? 0, d.min ?? 0, d.sec ?? 0)),
    );
    if (!iso) continue;
    if (key === "created") created = iso;
    else extra.dc = { ...extra.dc, [key]: iso };
  }
  const captures = (kind: string) =>
    Object.entries(info)
      .filter(([k]) => k.startsWith(`${kind}:`))
      .map(([, v]) => v.trim());
  // HYPERLINK "url", INCLUDEPICTURE "url", INCLUDETEXT "url" (\l marks a bookmark, not a URL).
  const links = captures("fldinst").flatMap((f) =>
    [...f.matchAll(/\b(HYPERLINK|INCLUDEPICTURE|INCLUDETEXT)\s+(?:\\[a-km-z]\s+)*"([^"]+)"/gi)].map(
      (m) => m[2] as string,
    ),
  );
  const objects = captures("objclass").filter(Boolean);
  extra.rtf = {
    codepage: reader.ansiCodepage,
    ...(links.length ? { links: [...new Set(links)] } : {}),
    ...(objects.length ? { object_classes: [...new Set(objects)] } : {}),
  };
  return { extra, created };
}

export function extractRtf(bytes: Buffer): Extracted {
  if (!isRtf(bytes)) throw new ParseFailure("not an RTF file: it does not start with {\\rtf");
  const reader = new RtfReader(bytes);
  reader.run();
  reader.flushBytes();
  if (reader.depth > 0 && reader.out.length === 0)
    throw new ParseFailure("truncated RTF: groups are not closed");
  const { extra, created } = rtfMetadata(reader);
  return {
    text: normaliseWhitespace(reader.out.join("")),
    title: (extra.dc?.title as string | undefined) ?? null,
    created,
    extra,
  };
}
