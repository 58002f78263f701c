/**
 * OLE property sets ([MS-OLEPS]): the SummaryInformation and DocumentSummaryInformation streams
 * that legacy Office files (DOC, XLS, PPT) carry — title, author, dates, application.
 */
import { isoDate } from "../result.ts";

type Value = string | number | boolean | Date;

const VT = { I2: 2, I4: 3, BOOL: 11, UI4: 19, LPSTR: 30, LPWSTR: 31, FILETIME: 64 } as const;

/** 100-ns intervals between 1601-01-01 and 1970-01-01. */
const FILETIME_EPOCH = 116444736000000000n;

function decodeString(bytes: Buffer, codepage: number): string {
  if (codepage === 1200) return bytes.toString("utf16le");
  try {
    return new TextDecoder(codepage === 65001 ? "utf-8" : `windows-${codepage}`).decode(bytes);
  } catch {
    return bytes.toString("latin1");
  }
}

/** Property id → value of the first property set in the stream; null when the stream is not one. */
export function readPropertySet(stream: Buffer): Map<number, Value> | null {
  if (stream.length < 48 || stream.readUInt16LE(0) !== 0xfffe) return null;
  const setOffset = stream.readUInt32LE(44);
  if (setOffset + 8 > stream.length) return null;
  const count = stream.readUInt32LE(setOffset + 4);
  const props = new Map<number, Value>();
  const raw: Array<[number, number]> = [];
  for (let i = 0; i < count && setOffset + 8 + i * 8 + 8 <= stream.length; i++) {
    raw.push([stream.readUInt32LE(setOffset + 8 + i * 8), stream.readUInt32LE(setOffset + 12 + i * 8)]);
  }
  // The code page (property 1) tells how to read 8-bit strings.
  let codepage = 1252;
  const readAt = (offset: number): Value | undefined => {
    const at = setOffset + offset;
    if (at + 8 > stream.length) return undefined;
    const type = stream.readUInt16LE(at);
    switch (type) {
      case VT.I2:
        return stream.readInt16LE(at + 4);
      case VT.I4:
        return stream.readInt32LE(at + 4);
      case VT.UI4:
        return stream.readUInt32LE(at + 4);
      case VT.BOOL:
        return stream.readUInt16LE(at + 4) !== 0;
      case VT.LPSTR: {
        const len = stream.readUInt32LE(at + 4);
        const bytes = stream.subarray(at + 8, Math.min(at + 8 + len, stream.length));
        return decodeString(bytes, codepage).replace(/\0+$/, "");
      }
      case VT.LPWSTR: {
        const len = stream.readUInt32LE(at + 4);
        return stream
          .subarray(at + 8, Math.min(at + 8 + len * 2, stream.length))
          .toString("utf16le")
          .replace(/\0+$/, "");
      }
      case VT.FILETIME: {
        if (at + 12 > stream.length) return undefined;
        const ticks = stream.readBigUInt64LE(at + 4);
        if (ticks === 0n) return undefined;
        return new Date(Number((ticks - FILETIME_EPOCH) / 10000n));
      }
      default:
        return undefined;
    }
  };
  const cp = raw.find(([id]) => id === 1);
  if (cp) {
    const v = readAt(cp[1]);
    if (typeof v === "number") codepage = v < 0 ? v + 65536 : v;
  }
  for (const [id, offset] of raw) {
    const v = readAt(offset);
    if (v !== undefined) props.set(id, v);
  }
  return props;
}

export interface SummaryMetadata {
  title: string | null;
  created: string | null;
  dc: Record<string, unknown>;
  office: Record<string, unknown>;
}

const text = (v: Value | undefined) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
/** A date in the past 1980: edit durations are FILETIMEs too and must not pass for dates. */
const date = (v: Value | undefined) =>
  v instanceof Date && v.getUTCFullYear() > 1980 ? (isoDate(v) ?? undefined) : undefined;

/** Title, author, dates and application from SummaryInformation (+ company from DocumentSummaryInformation). */
export function summaryMetadata(
  summary: Buffer | undefined,
  documentSummary: Buffer | undefined,
): SummaryMetadata {
  const s = summary ? readPropertySet(summary) : null;
  const d = documentSummary ? readPropertySet(documentSummary) : null;
  const dc: Record<string, unknown> = {
    title: text(s?.get(2)),
    subject: text(s?.get(3)),
    creator: text(s?.get(4)),
    keywords: text(s?.get(5)),
    description: text(s?.get(6)),
    last_modified_by: text(s?.get(8)),
    modified: date(s?.get(13)),
  };
  const office: Record<string, unknown> = {
    application: text(s?.get(18)),
    template: text(s?.get(7)),
    revision: text(s?.get(9)) === "0" ? undefined : text(s?.get(9)),
    last_printed: date(s?.get(11)),
    pages: s?.get(14),
    words: s?.get(15),
    characters: s?.get(16),
    category: text(d?.get(2)),
    manager: text(d?.get(14)),
    company: text(d?.get(15)),
  };
  for (const o of [dc, office])
    for (const [k, v] of Object.entries(o)) if (v === undefined || v === 0) delete o[k];
  return { title: text(s?.get(2)) ?? null, created: date(s?.get(12)) ?? null, dc, office };
}
