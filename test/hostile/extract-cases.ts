/**
 * Hostile inputs for the extractor, generated in code (no blob in the repo): archive bombs at
 * several widths and depths, self-referencing archives, text that fools encoding detection, and
 * documents built to exhaust their parser. Each says what a safe answer to it is.
 */
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { crc32, createDeflate, createGzip, deflateRawSync, deflateSync } from "node:zlib";
import * as CFB from "cfb";
import { buildersKey, cachedBuild } from "../helpers/built-cache.ts";
import { docxOf, pdfFromObjects } from "../helpers/documents.ts";
import { compressedStream, sevenZipArchive, withKeyPower } from "../helpers/sevenzip.ts";
import { storedZip } from "../helpers/zip.ts";

export interface ExtractCase {
  name: string;
  filename: string;
  bytes: () => Promise<Buffer>;
  /**
   * `partial`: a result that says it stopped (`extra.loupe.truncated`), or the extraction
   * stopped at a memory or time limit. `bounded`: any answer — a result or an entry error —
   * as long as it comes within the time limit and the process lives.
   */
  expect: "partial" | "bounded";
  /** The server it runs against: the defaults as shipped, or tight limits that keep the suite quick. */
  server: "defaults" | "tight";
}

const MiB = 1024 * 1024;

/** `chunk` repeated `times`, through a compressor, never all in memory uncompressed. */
function compressRepeated(chunk: Buffer, times: number, kind: "deflate" | "gzip"): Promise<Buffer> {
  const compressor = kind === "gzip" ? createGzip({ level: 9 }) : createDeflate({ level: 9 });
  Readable.from(
    (function* () {
      for (let i = 0; i < times; i++) yield chunk;
    })(),
  ).pipe(compressor);
  return buffer(compressor);
}

interface ZipRecord {
  name: string;
  /** Uncompressed content, deflated here (zlib, at C speed: 100 MiB of zeros in well under a second). */
  data: Buffer;
}

/** A deflated ZIP; `aliases` more central-directory records point at the first entry's bytes. */
export function deflatedZip(records: ZipRecord[], aliases = 0): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const central = (name: Buffer, crc: number, packed: number, size: number, at: number) => {
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(8, 10); // deflate
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(packed, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(at, 42);
    return Buffer.concat([c, name]);
  };
  for (const r of records) {
    const name = Buffer.from(r.name);
    const packed = deflateRawSync(r.data, { level: 9 });
    const crc = crc32(r.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(r.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, packed);
    centrals.push(central(name, crc, packed.length, r.data.length, offset));
    if (offset === 0)
      for (let i = 0; i < aliases; i++)
        centrals.push(central(Buffer.from(`alias-${i}-${r.name}`), crc, packed.length, r.data.length, 0));
    offset += local.length + name.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(centrals.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(centrals.length, 0xffff), 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** A zip holding `width` copies of an inner zip, each holding one file of `innerMiB` MiB of zero bytes. */
export function zipOfZips(width: number, innerMiB: number): Buffer {
  const inner = deflatedZip([{ name: "zeros.bin", data: Buffer.alloc(innerMiB * MiB) }]);
  return deflatedZip(Array.from({ length: width }, (_, i) => ({ name: `inner-${i}.zip`, data: inner })));
}

/** A zip inside a zip inside a zip…, `levels` deep, a note at the bottom. */
function nestedZips(levels: number): Buffer {
  let current: Buffer = Buffer.from("the bottom of the nest");
  for (let i = 0; i < levels; i++) current = storedZip({ [`level-${levels - i}.zip`]: current });
  return current;
}

const streamObject = (dict: string, packed: Buffer) =>
  Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${packed.length} /Filter /FlateDecode >>\nstream\n`, "latin1"),
    packed,
    Buffer.from("\nendstream", "latin1"),
  ]);

/** A one-page PDF whose page content is `packed` (deflated); `metadata` becomes the catalog's XMP stream. */
function pdfWithStream(packed: Buffer, metadata?: Buffer): Buffer {
  return pdfFromObjects(
    [
      `<< /Type /Catalog /Pages 2 0 R ${metadata ? "/Metadata 6 0 R" : ""} >>`,
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
      streamObject("", packed),
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
      ...(metadata ? [streamObject("/Type /Metadata /Subtype /XML", metadata)] : []),
    ],
    "/Root 1 0 R",
  );
}

/** A page tree that claims two billion pages and lists one page object 100,000 times. */
function pdfHugePageTree(): Buffer {
  const kids = "3 0 R ".repeat(100_000);
  const content = "BT /F1 12 Tf 72 720 Td (one page, many times) Tj ET";
  return pdfFromObjects(
    [
      "<< /Type /Catalog /Pages 2 0 R >>",
      `<< /Type /Pages /Kids [${kids}] /Count 2000000000 >>`,
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ],
    "/Root 1 0 R",
  );
}

/** An OLE compound file whose FAT chain for the directory, or whose directory tree, loops. */
function oleWithCycle(where: "fat" | "directory"): Buffer {
  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, "/Stream", Buffer.from("an ordinary stream ".repeat(300)));
  const bytes = Buffer.from(CFB.write(container, { type: "buffer" }) as Uint8Array);
  const sector = 512;
  const dirSid = bytes.readInt32LE(0x30);
  const fatSid = bytes.readInt32LE(0x4c);
  if (where === "fat") {
    bytes.writeInt32LE(dirSid, sector + fatSid * sector + dirSid * 4); // the directory's next sector is itself
  } else {
    const root = sector + dirSid * sector;
    bytes.writeInt32LE(0, root + 0x44); // the root's left sibling is the root
    bytes.writeInt32LE(0, root + 0x4c); // and so is its child
  }
  return bytes;
}

/** A DOCX whose body nests 200,000 elements deep, or expands entities a billion times over. */
function hostileDocx(kind: "deep" | "laughs"): Buffer {
  const body =
    kind === "deep"
      ? `<w:p><w:r><w:t>deep</w:t></w:r></w:p>${"<w:sdt><w:sdtContent>".repeat(200_000)}${"</w:sdtContent></w:sdt>".repeat(200_000)}`
      : "<w:p><w:r><w:t>&l9;</w:t></w:r></w:p>";
  const laughs = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join(
    "",
  );
  const doctype = kind === "laughs" ? `<!DOCTYPE w:document [<!ENTITY l0 "lol">${laughs}]>` : "";
  return docxOf(
    `<?xml version="1.0" encoding="UTF-8"?>${doctype}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
}

/** An XLSX whose shared strings nest 200,000 elements deep. */
function deepXlsx(): Buffer {
  const deep = `${"<r><t>".repeat(200_000)}x${"</t></r>".repeat(200_000)}`;
  return storedZip({
    "[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    "xl/workbook.xml": `<?xml version="1.0"?><workbook><sheets><sheet name="s" sheetId="1"/></sheets></workbook>`,
    "xl/sharedStrings.xml": `<?xml version="1.0"?><sst><si>${deep}</si></sst>`,
    "xl/worksheets/sheet1.xml": `<?xml version="1.0"?><worksheet><sheetData><row><c t="s"><v>0</v></c></row></sheetData></worksheet>`,
  });
}

const zeros = (mib: number) => Buffer.alloc(mib * MiB);
/** "A\0B\0…": Latin letters as UTF-16LE without a byte-order mark. */
const utf16Looking = (mib: number) => Buffer.from("A\0B\0".repeat((mib * MiB) / 4), "latin1");
/** 14 bytes of page content per text item: a 400 MiB stream is 30 million items for pdf.js to hold. */
const TEXT_OPS = Buffer.from("(AAAAAAAA) Tj\n".repeat(64 * 1024), "latin1");

const bomb = (c: Omit<ExtractCase, "expect">): ExtractCase => ({ ...c, expect: "partial" });
const parserAttack = (c: Omit<ExtractCase, "expect" | "server">): ExtractCase => ({
  ...c,
  expect: "bounded",
  server: "tight",
});

const cases: ExtractCase[] = [
  bomb({
    name: "zip of 6 zips, each one 100 MiB file of zero bytes (the 3 KB process killer)",
    filename: "bomb.zip",
    bytes: async () => zipOfZips(6, 100),
    server: "defaults",
  }),
  {
    name: "zip of 1 zip of 100 MiB of zero bytes (within the default budget: read whole, in bounds)",
    filename: "one.zip",
    bytes: async () => zipOfZips(1, 100),
    expect: "bounded",
    server: "defaults",
  },
  bomb({
    name: "zip of 64 zips of 16 MiB of zero bytes each",
    filename: "wide.zip",
    bytes: async () => zipOfZips(64, 16),
    server: "tight",
  }),
  bomb({
    name: "self-referencing zip: 20,000 directory records all pointing at one 10 MiB entry (200 GB claimed)",
    filename: "overlap.zip",
    bytes: async () => deflatedZip([{ name: "zeros.txt", data: zeros(10) }], 20_000),
    server: "tight",
  }),
  bomb({
    name: "zips nested 40 deep",
    filename: "nest.zip",
    bytes: async () => nestedZips(40),
    server: "tight",
  }),
  bomb({
    name: "gzip in gzip in gzip of 1 GiB of zero bytes",
    filename: "zeros.bin.gz.gz.gz",
    bytes: async () => {
      const once = await compressRepeated(zeros(1), 1024, "gzip");
      return compressRepeated(await compressRepeated(once, 1, "gzip"), 1, "gzip");
    },
    server: "tight",
  }),
  bomb({
    name: "xz stream of 256 MiB of zero bytes",
    filename: "zeros.xz",
    bytes: () => compressedStream(zeros(256), "xz"),
    server: "tight",
  }),
  bomb({
    name: "bzip2 stream of 256 MiB of zero bytes",
    filename: "zeros.bz2",
    bytes: () => compressedStream(zeros(256), "bzip2"),
    server: "tight",
  }),
  bomb({
    name: "7z holding an xz bomb, a bzip2 bomb and 2 × 64 MiB of zeros",
    filename: "nested.7z",
    bytes: async () =>
      sevenZipArchive({
        "a.xz": await compressedStream(zeros(128), "xz"),
        "b.bz2": await compressedStream(zeros(128), "bzip2"),
        "c.bin": zeros(64),
        "d.bin": zeros(64),
      }),
    server: "tight",
  }),
  bomb({
    name: "zip of a 40 MiB text entry that looks like UTF-16 (20 million characters, twice the text budget)",
    filename: "utf16.zip",
    bytes: async () => deflatedZip([{ name: "letters.txt", data: utf16Looking(40) }]),
    server: "tight",
  }),
  parserAttack({
    name: "7z with encrypted names whose key derivation asks for 2^24 rounds per password",
    filename: "costly-names.7z",
    bytes: async () =>
      withKeyPower(await sevenZipArchive({ "a.txt": "note" }, { password: "x", encryptHeaders: true }), 24),
  }),
  parserAttack({
    name: "7z of entries whose key derivation asks for 2^24 rounds per password",
    filename: "costly-entries.7z",
    bytes: async () =>
      withKeyPower(
        await sevenZipArchive(
          { "a.txt": "note", "b.txt": "more" },
          { password: "x", headerCompression: false },
        ),
        24,
      ),
  }),
  parserAttack({
    name: "gzip of 100 MiB of spaces (its head is read, its whitespace normalised)",
    filename: "padded.txt.gz",
    bytes: () => compressRepeated(Buffer.alloc(MiB, 0x20), 100, "gzip"),
  }),
  parserAttack({
    name: "8 MiB of zero bytes, uploaded as they are",
    filename: "zeros.txt",
    bytes: async () => zeros(8),
  }),
  parserAttack({
    name: "PDF whose page content inflates to 400 MiB of text operators (eats memory)",
    filename: "eater.pdf",
    bytes: async () =>
      pdfWithStream(await compressRepeated(TEXT_OPS, (400 * MiB) / TEXT_OPS.length, "deflate")),
  }),
  parserAttack({
    name: "PDF whose XMP metadata stream inflates to 600 MiB",
    filename: "metadata.pdf",
    bytes: async () => {
      const page = deflateSync(Buffer.from("BT /F1 12 Tf 72 720 Td (hello) Tj ET"));
      return pdfWithStream(page, await compressRepeated(Buffer.alloc(MiB, 0x20), 600, "deflate"));
    },
  }),
  parserAttack({
    name: "PDF page tree claiming two billion pages, one page object listed 100,000 times",
    filename: "pages.pdf",
    bytes: async () => pdfHugePageTree(),
  }),
  parserAttack({
    name: "OLE file whose directory sector chain loops on itself",
    filename: "fat-cycle.doc",
    bytes: async () => oleWithCycle("fat"),
  }),
  parserAttack({
    name: "OLE file whose directory tree is its own sibling and child",
    filename: "dir-cycle.doc",
    bytes: async () => oleWithCycle("directory"),
  }),
  parserAttack({
    name: "DOCX nesting 200,000 elements deep",
    filename: "deep.docx",
    bytes: async () => hostileDocx("deep"),
  }),
  parserAttack({
    name: "DOCX with a billion-laughs entity expansion",
    filename: "laughs.docx",
    bytes: async () => hostileDocx("laughs"),
  }),
  parserAttack({
    name: "XLSX whose shared strings nest 200,000 elements deep",
    filename: "deep.xlsx",
    bytes: async () => deepXlsx(),
  }),
];

/** Built once per machine and kept (extract.test.ts, corpus.test.ts and the soak send the same bytes). */
const BUILDERS = buildersKey(
  ["./extract-cases.ts", "../helpers/documents.ts", "../helpers/sevenzip.ts", "../helpers/zip.ts"].map(
    (f) => new URL(f, import.meta.url).pathname,
  ),
);

export const extractCases: ExtractCase[] = cases.map((c) => ({
  ...c,
  bytes: () => cachedBuild(BUILDERS, c.name, c.bytes),
}));
