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

export function extractRtf(bytes: Buffer): Extracted {
  if (!isRtf(bytes)) throw new ParseFailure("not an RTF file: it does not start with {\\rtf");
  let ansiCodepage = 1252;
  const fontCodepage = new Map<number, number>();
  let fontTableCurrent = -1;
  const out: string[] = [];
  let pendingBytes: number[] = [];
  const info: Record<string, string> = {};
  const infoDates: Record<string, Record<string, number>> = {};
  let state: GroupState = { skip: false, uc: 1, font: -1, info: null, inInfo: false, fontTable: false };
  const stack: GroupState[] = [];
  let skipChars = 0;
  let starred = false; // the previous token was \* opening a group
  let groupStarted = false; // the previous token opened a group: the next control word may name a destination
  let depth = 0;
  let captured = 0;

  const codepage = () => fontCodepage.get(state.font) ?? ansiCodepage;
  const emit = (s: string) => {
    if (state.info) info[state.info] = (info[state.info] ?? "") + s;
    else if (!state.skip) out.push(s);
  };
  const flushBytes = () => {
    if (pendingBytes.length === 0) return;
    const text = decoderFor(codepage()).decode(Uint8Array.from(pendingBytes));
    pendingBytes = [];
    emit(text);
  };

  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const c = bytes[i] as number;
    if (c === 0x7b /* { */) {
      flushBytes();
      stack.push(state);
      state = { ...state };
      depth++;
      groupStarted = true;
      i++;
      continue;
    }
    if (c === 0x7d /* } */) {
      flushBytes();
      const prev = stack.pop();
      if (!prev) break; // the closing brace of the document
      state = prev;
      depth--;
      groupStarted = false;
      i++;
      continue;
    }
    if (c === 0x5c /* \ */) {
      const next = bytes[i + 1];
      if (next === undefined) break;
      const isLetter = (b: number | undefined) =>
        b !== undefined && ((b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a));
      if (!isLetter(next)) {
        // Control symbol.
        const wasGroupStart = groupStarted;
        groupStarted = false;
        if (next === 0x27 /* ' */) {
          const hex = bytes.toString("latin1", i + 2, i + 4);
          i += 4;
          if (skipChars > 0) {
            skipChars--;
            continue;
          }
          const b = Number.parseInt(hex, 16);
          if (!Number.isNaN(b)) pendingBytes.push(b);
          continue;
        }
        flushBytes();
        i += 2;
        if (next === 0x2a /* * */) {
          if (wasGroupStart) {
            state.skip = true;
            starred = true;
            groupStarted = true; // the destination's word follows
          }
          continue;
        }
        if (skipChars > 0) {
          skipChars--;
          continue;
        }
        if (next === 0x7e /* ~ */) emit("\u00a0");
        else if (next === 0x5f /* _ */) emit("-");
        else if (next === 0x0a || next === 0x0d) emit("\n");
        else if (next === 0x5c || next === 0x7b || next === 0x7d) emit(String.fromCharCode(next));
        // \- (optional hyphen), \: (index subentry) and others print nothing.
        continue;
      }
      let j = i + 1;
      while (j < n && isLetter(bytes[j])) j++;
      const word = bytes.toString("latin1", i + 1, j);
      let k = j;
      if (bytes[k] === 0x2d /* - */) k++;
      while (k < n && (bytes[k] as number) >= 0x30 && (bytes[k] as number) <= 0x39) k++;
      const param = k > j ? Number.parseInt(bytes.toString("latin1", j, k), 10) : null;
      if (bytes[k] === 0x20) k++; // the space that ends a control word belongs to it
      i = k;
      const wasGroupStart = groupStarted;
      const wasStarred = starred;
      groupStarted = false;
      starred = false;
      if (wasStarred && STARRED_TEXT.has(word) && !stack.at(-1)?.skip) state.skip = false;
      if (word === "bin") {
        i += Math.max(0, param ?? 0); // binary data: nothing to read
        continue;
      }
      if (word !== "u" && skipChars > 0) {
        skipChars--;
        continue;
      }
      if (word === "u" && param !== null) {
        flushBytes();
        emit(String.fromCharCode(param < 0 ? param + 65536 : param));
        skipChars = state.uc;
        continue;
      }
      flushBytes();
      if (word === "ansicpg" && param !== null && param > 0) ansiCodepage = param;
      else if (word === "uc" && param !== null) state.uc = Math.max(0, param);
      else if (word === "f" && param !== null) {
        if (state.fontTable) fontTableCurrent = param;
        else state.font = param;
      } else if (word === "fcharset" && param !== null && state.fontTable) {
        const cp = CHARSET_CODEPAGE[param];
        if (cp && fontTableCurrent >= 0) fontCodepage.set(fontTableCurrent, cp);
      } else if (wasGroupStart && word === "fonttbl") {
        state.skip = true;
        state.fontTable = true;
      } else if (wasGroupStart && (word === "fldinst" || word === "objclass")) {
        // Not text, but what investigators look for: link targets, remote templates, OLE classes.
        state.skip = true;
        state.info = `${word}:${captured++}`;
        info[state.info] = "";
      } else if (wasGroupStart && SKIPPED.has(word)) state.skip = true;
      else if (wasGroupStart && word === "info") {
        state.skip = true;
        state.inInfo = true;
      } else if (state.inInfo && wasGroupStart && Object.hasOwn(INFO_TEXT, word)) {
        state.info = word;
        info[word] = ""; // a repeated item replaces the earlier one
      } else if (state.inInfo && wasGroupStart && Object.hasOwn(INFO_DATES, word)) {
        infoDates[word] = {};
        state.info = `date:${word}`;
      } else if (state.info?.startsWith("date:") && param !== null) {
        const target = infoDates[state.info.slice(5)];
        if (target) target[word] = param;
      } else if (Object.hasOwn(SYMBOLS, word) && !state.info) emit(SYMBOLS[word] as string);
      continue;
    }
    if (c === 0x0d || c === 0x0a) {
      i++; // line breaks in the source are not text
      continue;
    }
    groupStarted = false;
    if (skipChars > 0) {
      skipChars--;
      i++;
      continue;
    }
    if (state.info?.startsWith("date:")) {
      i++;
      continue;
    }
    // A run of plain text up to the next special character.
    let j = i;
    while (j < n) {
      const b = bytes[j] as number;
      if (b === 0x5c || b === 0x7b || b === 0x7d || b === 0x0d || b === 0x0a) break;
      j++;
    }
    if (c >= 0x80) {
      for (let k = i; k < j; k++) pendingBytes.push(bytes[k] as number);
    } else {
      flushBytes();
      emit(bytes.toString("latin1", i, j));
    }
    i = j;
  }
  flushBytes();
  if (depth > 0 && out.length === 0) throw new ParseFailure("truncated RTF: groups are not closed");

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
    codepage: ansiCodepage,
    ...(links.length ? { links: [...new Set(links)] } : {}),
    ...(objects.length ? { object_classes: [...new Set(objects)] } : {}),
  };
  return {
    text: normaliseWhitespace(out.join("")),
    title: (extra.dc?.title as string | undefined) ?? null,
    created,
    extra,
  };
}
