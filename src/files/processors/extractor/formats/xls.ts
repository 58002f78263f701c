/**
 * Legacy Excel (BIFF8, and BIFF5 labels): the cells of every worksheet from the Workbook
 * stream's records — shared strings (SST, continued across CONTINUE records), labels, numbers
 * (NUMBER, RK, MULRK; dates, by their cell's number format, as ISO 8601), booleans and cached
 * formula results — each sheet under its name, one tab-separated line per row.
 */
import { TextDecoder } from "node:util";
import { ParseFailure } from "../result.ts";

const R = {
  BOF: 0x0809,
  EOF: 0x000a,
  BOUNDSHEET: 0x0085,
  SST: 0x00fc,
  CONTINUE: 0x003c,
  FILEPASS: 0x002f,
  LABELSST: 0x00fd,
  LABEL: 0x0204,
  RSTRING: 0x00d6,
  NUMBER: 0x0203,
  RK: 0x027e,
  MULRK: 0x00bd,
  BOOLERR: 0x0205,
  FORMULA: 0x0006,
  STRING: 0x0207,
  CODEPAGE: 0x0042,
  FORMAT: 0x041e,
  XF: 0x00e0,
  DATEMODE: 0x0022,
} as const;

/** Built-in number formats that show dates or times ([MS-XLS] 2.4.126). */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** A custom format shows a date or time when, outside quotes, brackets and escapes, it has d, m, y, h or s. */
function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\[[^\]]*\]|\\.|_.|\*./g, "");
  return /[dmyhs]/i.test(bare) && !/^general$/i.test(bare.trim());
}

/** A serial date as ISO 8601 (date, date and time, or time alone). */
function serialDate(serial: number, date1904: boolean, format: string): string {
  const days = date1904 ? serial + 1462 : serial;
  const ms = Math.round((days - 25569) * 86_400_000);
  const d = new Date(ms);
  if (Number.isNaN(d.getTime()) || days < 0) return show(serial);
  const iso = d.toISOString();
  if (serial < 1 && !date1904) return iso.slice(11, 19);
  const hasTime = /[hs]/i.test(format.replace(/"[^"]*"|\[[^\]]*\]/g, "")) || serial % 1 !== 0;
  return hasTime ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : iso.slice(0, 10);
}

interface Record_ {
  type: number;
  data: Buffer;
}

function records(stream: Buffer): Record_[] {
  const out: Record_[] = [];
  let at = 0;
  while (at + 4 <= stream.length) {
    const type = stream.readUInt16LE(at);
    const len = stream.readUInt16LE(at + 2);
    out.push({ type, data: stream.subarray(at + 4, Math.min(at + 4 + len, stream.length)) });
    at += 4 + len;
  }
  return out;
}

/** Reads across a record and its CONTINUE records; character runs restart with a flags byte at each boundary. */
class ContinuedReader {
  private segment = 0;
  private at = 0;
  private readonly segments: Buffer[];
  constructor(segments: Buffer[]) {
    this.segments = segments;
  }

  private current(): Buffer | undefined {
    while (this.segment < this.segments.length && this.at >= (this.segments[this.segment]?.length ?? 0)) {
      this.segment++;
      this.at = 0;
    }
    return this.segments[this.segment];
  }

  get done(): boolean {
    return this.current() === undefined;
  }

  bytes(n: number): Buffer {
    const parts: Buffer[] = [];
    let left = n;
    while (left > 0) {
      const seg = this.current();
      if (!seg) throw new ParseFailure("shared string table ends early");
      const take = Math.min(left, seg.length - this.at);
      parts.push(seg.subarray(this.at, this.at + take));
      this.at += take;
      left -= take;
    }
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }

  u8 = () => this.bytes(1).readUInt8(0);
  u16 = () => this.bytes(2).readUInt16LE(0);
  u32 = () => this.bytes(4).readUInt32LE(0);

  chars(count: number, highByte: boolean): string {
    let out = "";
    let left = count;
    let wide = highByte;
    while (left > 0) {
      const seg = this.current();
      if (!seg) throw new ParseFailure("shared string table ends early");
      const fit = Math.floor((seg.length - this.at) / (wide ? 2 : 1));
      const take = Math.min(left, fit);
      const raw = seg.subarray(this.at, this.at + take * (wide ? 2 : 1));
      out += wide ? raw.toString("utf16le") : raw.toString("latin1");
      this.at += raw.length;
      left -= take;
      if (left > 0) {
        // The string goes on in the next CONTINUE record, which starts with its own flags byte.
        this.segment++;
        this.at = 0;
        if (!this.current()) throw new ParseFailure("shared string table ends early");
        wide = (this.u8() & 1) === 1;
      }
    }
    return out;
  }
}

function readSst(segments: Buffer[]): string[] {
  const r = new ContinuedReader(segments);
  r.bytes(4); // total count
  const unique = r.u32();
  const strings: string[] = [];
  for (let i = 0; i < unique && !r.done; i++) {
    const cch = r.u16();
    const flags = r.u8();
    const runs = flags & 0x08 ? r.u16() : 0;
    const ext = flags & 0x04 ? r.u32() : 0;
    strings.push(r.chars(cch, (flags & 1) === 1));
    if (runs) r.bytes(runs * 4);
    if (ext) r.bytes(ext);
  }
  return strings;
}

/** XLUnicodeString (BIFF8: u16 count, flags, characters) or a BIFF5 byte string. */
function unicodeString(data: Buffer, at: number, biff8: boolean, decoder: TextDecoder): string {
  const cch = data.readUInt16LE(at);
  if (!biff8) return decoder.decode(data.subarray(at + 2, at + 2 + cch));
  const wide = (data[at + 2] ?? 0) & 1;
  return wide
    ? data.subarray(at + 3, at + 3 + cch * 2).toString("utf16le")
    : data.subarray(at + 3, at + 3 + cch).toString("latin1");
}

function rkNumber(rk: number): number {
  let v: number;
  if (rk & 2) v = rk >> 2;
  else {
    const b = Buffer.alloc(8);
    b.writeUInt32LE((rk & 0xfffffffc) >>> 0, 4);
    v = b.readDoubleLE(0);
  }
  return rk & 1 ? v / 100 : v;
}

const show = (n: number) => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(15))));

export interface Workbook {
  text: string;
  sheetNames: string[];
}

type Sheet = Map<number, Map<number, string>>;

/** The state of one pass over the records: the workbook-wide tables, then the cells of each sheet. */
class WorkbookReader {
  sst: string[] = [];
  readonly sheetNames: string[] = [];
  readonly sheets: Sheet[] = [];
  private sheet: Sheet | null = null;
  private biff8 = true;
  private decoder = new TextDecoder("windows-1252");
  private pendingFormula: [number, number] | null = null;
  private readonly formats = new Map<number, string>();
  private readonly xfFormats: number[] = [];
  private date1904 = false;

  /** A number as the cell shows it: dates as dates, everything else as the number. */
  private numberAt(data: Buffer, xfOffset: number, value: number): string {
    const ifmt = this.xfFormats[data.readUInt16LE(xfOffset)];
    if (ifmt === undefined) return show(value);
    const code = this.formats.get(ifmt);
    if (code !== undefined ? isDateFormat(code) : BUILTIN_DATE_FORMATS.has(ifmt))
      return serialDate(value, this.date1904, code ?? (ifmt >= 18 && ifmt <= 22 ? "h:mm" : "d"));
    return show(value);
  }

  private put(data: Buffer, value: string): void {
    if (!this.sheet || data.length < 4) return;
    const row = data.readUInt16LE(0);
    const col = data.readUInt16LE(2);
    const cells = this.sheet.get(row) ?? new Map<number, string>();
    this.sheet.set(row, cells);
    cells.set(col, value);
  }

  /** Reads the record at `i`; returns the index of the last record it consumed. */
  record(recs: Record_[], i: number): number {
    const { type, data } = recs[i] as Record_;
    switch (type) {
      case R.BOF: {
        this.biff8 = data.readUInt16LE(0) === 0x0600;
        const kind = data.readUInt16LE(2);
        this.sheet = kind === 0x0010 ? new Map() : null;
        if (this.sheet) this.sheets.push(this.sheet);
        break;
      }
      case R.FILEPASS:
        throw new ParseFailure("the workbook is encrypted");
      case R.CODEPAGE: {
        const cp = data.readUInt16LE(0);
        if (cp !== 1200) {
          try {
            this.decoder = new TextDecoder(`windows-${cp}`);
          } catch {
            // Keep Windows-1252.
          }
        }
        break;
      }
      case R.BOUNDSHEET:
        this.sheetNames.push(this.sheetName(data));
        break;
      case R.SST: {
        const segments = [data];
        while (recs[i + 1]?.type === R.CONTINUE) segments.push((recs[++i] as Record_).data);
        this.sst = readSst(segments);
        break;
      }
      case R.FORMAT:
        if (this.biff8 && data.length >= 5)
          this.formats.set(data.readUInt16LE(0), unicodeString(data, 2, true, this.decoder));
        break;
      case R.XF:
        if (data.length >= 4) this.xfFormats.push(data.readUInt16LE(2));
        break;
      case R.DATEMODE:
        this.date1904 = data.length >= 2 && data.readUInt16LE(0) === 1;
        break;
      default:
        this.cell(type, data);
    }
    return i;
  }

  private sheetName(data: Buffer): string {
    if (!this.biff8) return this.decoder.decode(data.subarray(7, 7 + (data[6] ?? 0)));
    const cch = data[6] ?? 0;
    const wide = (data[7] ?? 0) & 1;
    return wide
      ? data.subarray(8, 8 + cch * 2).toString("utf16le")
      : data.subarray(8, 8 + cch).toString("latin1");
  }

  /** The records that hold a cell's value. */
  private cell(type: number, data: Buffer): void {
    switch (type) {
      case R.LABELSST:
        this.put(data, this.sst[data.readUInt32LE(6)] ?? "");
        break;
      case R.LABEL:
      case R.RSTRING:
        this.put(data, unicodeString(data, 6, this.biff8, this.decoder));
        break;
      case R.NUMBER:
        this.put(data, this.numberAt(data, 4, data.readDoubleLE(6)));
        break;
      case R.RK:
        this.put(data, this.numberAt(data, 4, rkNumber(data.readUInt32LE(6))));
        break;
      case R.MULRK: {
        const row = data.readUInt16LE(0);
        const first = data.readUInt16LE(2);
        const count = Math.floor((data.length - 6) / 6);
        for (let k = 0; k < count; k++) {
          const value = this.numberAt(data, 4 + k * 6, rkNumber(data.readUInt32LE(4 + k * 6 + 2)));
          this.put(cellAt(row, first + k), value);
        }
        break;
      }
      case R.BOOLERR:
        if (data[7] === 0) this.put(data, data[6] ? "TRUE" : "FALSE");
        break;
      case R.FORMULA: {
        if (data.length < 14) break;
        const isSpecial = data.readUInt16LE(12) === 0xffff;
        if (!isSpecial) this.put(data, this.numberAt(data, 4, data.readDoubleLE(6)));
        else if (data[6] === 0) this.pendingFormula = [data.readUInt16LE(0), data.readUInt16LE(2)];
        else if (data[6] === 1) this.put(data, data[8] ? "TRUE" : "FALSE");
        break;
      }
      case R.STRING:
        if (this.pendingFormula) {
          this.put(
            cellAt(this.pendingFormula[0], this.pendingFormula[1]),
            unicodeString(data, 0, this.biff8, this.decoder),
          );
          this.pendingFormula = null;
        }
        break;
    }
  }
}

/** A four-byte row/column prefix, the shape `put` reads a cell's address from. */
function cellAt(row: number, col: number): Buffer {
  const cell = Buffer.alloc(4);
  cell.writeUInt16LE(row, 0);
  cell.writeUInt16LE(col, 2);
  return cell;
}

/** Like XLSX and ODS: each sheet starts with its name, a row is one tab-separated line. */
function sheetsText(sheets: Sheet[], sheetNames: string[]): string {
  const lines: string[] = [];
  for (const [index, s] of sheets.entries()) {
    lines.push(sheetNames[index] ?? "");
    for (const row of [...s.keys()].sort((a, b) => a - b)) {
      const cells = s.get(row) as Map<number, string>;
      lines.push(
        [...cells.entries()]
          .sort(([a], [b]) => a - b)
          .map(([, v]) => v)
          .join("\t"),
      );
    }
    lines.push("");
  }
  return lines.join("\n");
}

export function readWorkbook(stream: Buffer): Workbook {
  const recs = records(stream);
  if (recs[0]?.type !== R.BOF) throw new ParseFailure("the Workbook stream does not start with a BOF record");
  const reader = new WorkbookReader();
  for (let i = 0; i < recs.length; i++) i = reader.record(recs, i);
  return { text: sheetsText(reader.sheets, reader.sheetNames), sheetNames: reader.sheetNames };
}
