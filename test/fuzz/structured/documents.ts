/**
 * Document structures for the structure-aware fuzz: PDFs whose object and xref tables lie (page
 * trees with cycles and false counts, stream lengths, object streams, deep nesting, inflate
 * bombs) and OLE compound files whose FAT chains loop, end nowhere or point out of the file.
 */
import { deflateSync } from "node:zlib";
import fc from "fast-check";

export interface PdfCase {
  pages: number;
  /** The page tree's /Kids point back up (a cycle) or at themselves. */
  cycle: "none" | "parent" | "self";
  countLie: number;
  lengthSkew: number;
  objStmN: number;
  xrefShape: "true" | "offsets-wrong" | "count-huge" | "missing" | "startxref-loop";
  nesting: number;
  bombBytes: number;
}

export const pdfCase: fc.Arbitrary<PdfCase> = fc.record({
  pages: fc.integer({ min: 0, max: 200 }),
  cycle: fc.constantFrom("none", "parent", "self") as fc.Arbitrary<PdfCase["cycle"]>,
  countLie: fc.constantFrom(0, 0, 1, -1, 2 ** 31 - 1, 1e9),
  lengthSkew: fc.constantFrom(0, 0, -10, 10, 1e9, -1e9),
  objStmN: fc.constantFrom(0, 1, 1000, 2 ** 31 - 1),
  xrefShape: fc.constantFrom(
    "true",
    "offsets-wrong",
    "count-huge",
    "missing",
    "startxref-loop",
  ) as fc.Arbitrary<PdfCase["xrefShape"]>,
  nesting: fc.constantFrom(0, 10, 1000, 20_000),
  bombBytes: fc.constantFrom(0, 0, 1 << 20, 64 << 20),
});

export function buildPdf(c: PdfCase): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body); // object number = index + 1
  add("<</Type/Catalog/Pages 2 0 R>>");
  const firstPage = 5;
  const kids = Array.from({ length: c.pages }, (_, i) => `${firstPage + i} 0 R`);
  if (c.cycle === "parent") kids.push("2 0 R");
  if (c.cycle === "self") kids.push("3 0 R");
  add(`<</Type/Pages/Kids[${kids.join(" ")} 3 0 R]/Count ${c.pages + 1 + c.countLie}>>`);
  add(`<</Type/Pages/Parent 2 0 R/Kids[${c.cycle === "self" ? "3 0 R" : ""}]/Count ${c.countLie}>>`);
  const text = `BT /F1 12 Tf 72 712 Td (spyware) Tj ET ${"[".repeat(c.nesting)}${"]".repeat(c.nesting)}`;
  add(`<</Length ${text.length + c.lengthSkew}>>stream\n${text}\nendstream`);
  for (let i = 0; i < c.pages; i++) add(`<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>`);
  const stm = "1 0 2 5 ";
  add(
    `<</Type/ObjStm/N ${c.objStmN}/First ${stm.length}/Length ${stm.length + 10}>>stream\n${stm}<<>> <<>>\nendstream`,
  );
  const streams: Buffer[] = [];
  if (c.bombBytes > 0) {
    const packed = deflateSync(Buffer.alloc(c.bombBytes), { level: 9 });
    streams.push(
      Buffer.from(`${objects.length + 1} 0 obj<</Filter/FlateDecode/Length ${packed.length}>>stream\n`),
      packed,
      Buffer.from("\nendstream endobj\n"),
    );
  }
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((body, i) => {
    const b = Buffer.from(`${i + 1} 0 obj${body}endobj\n`, "latin1");
    offsets.push(at);
    parts.push(b);
    at += b.length;
  });
  for (const s of streams) {
    parts.push(s);
    at += s.length;
  }
  parts.push(Buffer.from(xref(c, offsets, at), "latin1"));
  return Buffer.concat(parts);
}

function xref(c: PdfCase, offsets: number[], at: number): string {
  const trailer = `trailer<</Size ${offsets.length + 1}/Root 1 0 R${c.xrefShape === "startxref-loop" ? `/Prev ${at}` : ""}>>`;
  if (c.xrefShape === "missing") return `${trailer}\nstartxref\n999999\n%%EOF\n`;
  const count = c.xrefShape === "count-huge" ? 2 ** 31 - 1 : offsets.length + 1;
  const rows = offsets.map(
    (o) => `${String(c.xrefShape === "offsets-wrong" ? o * 7 + 3 : o).padStart(10, "0")} 00000 n \n`,
  );
  return `xref\n0 ${count}\n0000000000 65535 f \n${rows.join("")}${trailer}\nstartxref\n${at}\n%%EOF\n`;
}

export interface OleCase {
  sectorShift: number;
  fatChain: "end" | "self" | "loop" | "out-of-range" | "free";
  fatSectors: number;
  streamSize: number;
  dirCycle: boolean;
  miniCutoff: number;
}

export const oleCase: fc.Arbitrary<OleCase> = fc.record({
  sectorShift: fc.constantFrom(9, 9, 9, 12, 7, 16, 30),
  fatChain: fc.constantFrom("end", "self", "loop", "out-of-range", "free") as fc.Arbitrary<
    OleCase["fatChain"]
  >,
  fatSectors: fc.constantFrom(1, 1, 0, 109, 0xffff, 0x7fffffff),
  streamSize: fc.constantFrom(100, 4096, 0xffffffff, 0x7fffffff, 0),
  dirCycle: fc.boolean(),
  miniCutoff: fc.constantFrom(4096, 0, 0xffffffff),
});

const END = 0xfffffffe;
const FREE = 0xffffffff;
const FAT_SECTOR = 0xfffffffd;

/** A compound file: sector 0 FAT, 1 directory, 2–3 a stream "WordDocument", chains per the case. */
export function buildOle(c: OleCase): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from("d0cf11e0a1b11ae1", "hex").copy(header, 0);
  header.writeUInt16LE(0x3e, 24);
  header.writeUInt16LE(3, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(c.sectorShift, 30);
  header.writeUInt16LE(6, 32);
  header.writeUInt32LE(c.fatSectors >>> 0, 44);
  header.writeUInt32LE(1, 48); // first directory sector
  header.writeUInt32LE(c.miniCutoff >>> 0, 56);
  header.writeUInt32LE(END, 60);
  header.writeUInt32LE(END, 68);
  header.fill(0xff, 76);
  header.writeUInt32LE(0, 76); // DIFAT[0]: the FAT is sector 0
  const fat = Buffer.alloc(512, 0xff);
  const chain: Record<OleCase["fatChain"], [number, number]> = {
    end: [3, END],
    self: [2, END], // sector 2 points to itself
    loop: [3, 2], // 2 → 3 → 2 …
    "out-of-range": [0x00ffffff, END],
    free: [FREE, FREE],
  };
  fat.writeUInt32LE(FAT_SECTOR, 0);
  fat.writeUInt32LE(c.dirCycle ? 1 : END, 4); // the directory's chain may loop on itself
  fat.writeUInt32LE(chain[c.fatChain][0], 8);
  fat.writeUInt32LE(chain[c.fatChain][1], 12);
  const dir = Buffer.alloc(512);
  dirEntry(dir, 0, "Root Entry", 5, c.dirCycle ? 1 : FREE, END, 0);
  dirEntry(dir, 1, "WordDocument", 2, FREE, 2, c.streamSize, c.dirCycle ? 1 : FREE);
  const data = Buffer.alloc(1024, 0x41);
  return Buffer.concat([header, fat, dir, data]);
}

function dirEntry(
  dir: Buffer,
  index: number,
  name: string,
  type: number,
  child: number,
  start: number,
  size: number,
  sibling = FREE,
): void {
  const at = index * 128;
  const n = Buffer.from(`${name}\0`, "utf16le");
  n.copy(dir, at);
  dir.writeUInt16LE(n.length, at + 64);
  dir[at + 66] = type;
  dir[at + 67] = 1;
  dir.writeUInt32LE(sibling, at + 68);
  dir.writeUInt32LE(sibling, at + 72);
  dir.writeUInt32LE(child, at + 76);
  dir.writeUInt32LE(start >>> 0, at + 116);
  dir.writeUInt32LE(size >>> 0, at + 120);
}
