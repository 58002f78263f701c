/**
 * A Dalvik executable written from its published layout (source.android.com, "Dalvik executable
 * format"): the 0x70-byte header with its Adler-32 checksum and SHA-1 signature, sorted string
 * ids and data, type ids, class definitions and the map list. Classes have no code: the format
 * allows it, and the facts read here are names and counts.
 */
import { createHash } from "node:crypto";

const NO_INDEX = 0xffffffff;
const ACC_PUBLIC = 0x1;

function uleb128(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return Buffer.from(out);
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const u32 = (values: number[]) => {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => {
    b.writeUInt32LE(v >>> 0, i * 4);
  });
  return b;
};

/** A DEX defining `classes` (descriptors such as `Lcom/example/Main;`), each extending Object. */
export function dexFile(classes: string[], sourceFile = "Main.java"): Buffer {
  const object = "Ljava/lang/Object;";
  const strings = [...new Set([...classes, object, sourceFile])].sort();
  const types = [...new Set([...classes, object])].sort();
  const typeIndex = (d: string) => types.indexOf(d);
  const stringIndex = (s: string) => strings.indexOf(s);
  const stringIdsOff = 0x70;
  const typeIdsOff = stringIdsOff + 4 * strings.length;
  const classDefsOff = typeIdsOff + 4 * types.length;
  const dataOff = classDefsOff + 32 * classes.length;
  const stringData = strings.map((s) =>
    Buffer.concat([uleb128(s.length), Buffer.from(s, "utf8"), Buffer.from([0])]),
  );
  const stringOffsets: number[] = [];
  let at = dataOff;
  for (const d of stringData) {
    stringOffsets.push(at);
    at += d.length;
  }
  const mapOff = (at + 3) & ~3;
  const padding = Buffer.alloc(mapOff - at);
  const mapItems: Array<[number, number, number]> = [
    [0x0000, 1, 0],
    [0x0001, strings.length, stringIdsOff],
    [0x0002, types.length, typeIdsOff],
    [0x0006, classes.length, classDefsOff],
    [0x2002, strings.length, dataOff],
    [0x1000, 1, mapOff],
  ];
  const map = Buffer.alloc(4 + 12 * mapItems.length);
  map.writeUInt32LE(mapItems.length, 0);
  mapItems.forEach(([type, size, offset], i) => {
    map.writeUInt16LE(type, 4 + i * 12);
    map.writeUInt32LE(size, 8 + i * 12);
    map.writeUInt32LE(offset, 12 + i * 12);
  });
  const classDefs = classes.map((c) =>
    u32([typeIndex(c), ACC_PUBLIC, typeIndex(object), 0, stringIndex(sourceFile) ?? NO_INDEX, 0, 0, 0]),
  );
  const body = Buffer.concat([
    u32(stringOffsets),
    u32(types.map((t) => stringIndex(t))),
    ...classDefs,
    ...stringData,
    padding,
    map,
  ]);
  const fileSize = 0x70 + body.length;
  const header = Buffer.alloc(0x70);
  header.write("dex\n035\0", 0, "latin1");
  u32([
    fileSize,
    0x70,
    0x12345678,
    0,
    0,
    mapOff,
    strings.length,
    stringIdsOff,
    types.length,
    typeIdsOff,
    0,
    0,
    0,
    0,
    0,
    0,
    classes.length,
    classDefsOff,
    fileSize - dataOff,
    dataOff,
  ]).copy(header, 32);
  const file = Buffer.concat([header, body]);
  createHash("sha1").update(file.subarray(32)).digest().copy(file, 12);
  file.writeUInt32LE(adler32(file.subarray(12)), 8);
  return file;
}
