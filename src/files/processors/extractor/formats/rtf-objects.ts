/**
 * The objects an RTF file embeds (`{\object … {\*\objdata <hex>}}`), the classic carrier of
 * exploit documents: each `\objdata` group's hex is decoded into an OLE1 object, whose native data
 * is the embedded file (a Packager object gives its own name and bytes; an OLE2 object, e.g. an
 * equation or a workbook, is a compound file read one level deeper). One linear pass; the hex read
 * is bounded by the bytes the budget has left.
 */
import { readOle10Native } from "./ole-embedded.ts";

const OBJDATA = /\\objdata\b/g;

export interface RtfObject {
  name: string;
  bytes: Buffer;
}

export function rtfObjects(rtf: Buffer, maxBytes: number): RtfObject[] {
  const text = rtf.toString("latin1");
  const found: RtfObject[] = [];
  let left = maxBytes;
  for (const m of text.matchAll(OBJDATA)) {
    const data = hexFrom(text, m.index + m[0].length, left);
    if (data.length === 0) continue;
    left -= data.length;
    found.push(objectOf(data, found.length + 1));
  }
  return found;
}

/** Hex digits from `at` (whitespace skipped) until anything else, at most `max` bytes. */
function hexFrom(text: string, at: number, max: number): Buffer {
  const digits: string[] = [];
  let i = at;
  for (; i < text.length && digits.length < max * 2; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0d || c === 0x0a || c === 0x09) continue;
    const hex = (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
    if (!hex) break;
    digits.push(text[i] as string);
  }
  const even = digits.length - (digits.length % 2);
  return Buffer.from(digits.slice(0, even).join(""), "hex");
}

/** OLE1: version, format, class name, topic, item (length-prefixed), native size, native data. */
function objectOf(data: Buffer, n: number): RtfObject {
  try {
    let at = 8;
    const lengthPrefixed = () => {
      const length = data.readUInt32LE(at);
      const value = data.toString("latin1", at + 4, at + 4 + length).replace(/\0+$/, "");
      at += 4 + length;
      return value;
    };
    const className = lengthPrefixed();
    lengthPrefixed();
    lengthPrefixed();
    const size = data.readUInt32LE(at);
    const native = data.subarray(at + 4, at + 4 + size);
    if (className === "Package") {
      const sized = Buffer.alloc(4);
      sized.writeUInt32LE(native.length);
      const packaged = readOle10Native(Buffer.concat([sized, native]));
      if (packaged) return packaged;
    }
    return { name: `object${n}.${className.replace(/[^\w.-]/g, "_") || "bin"}`, bytes: native };
  } catch {
    // Not an OLE1 header: the decoded bytes are the object.
    return { name: `object${n}.bin`, bytes: data };
  }
}
