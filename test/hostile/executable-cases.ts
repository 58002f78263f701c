/**
 * Hostile executables for `extra.executable`, built in code from the formats' published headers:
 * declared counts far past what the file holds, ranges past the end of the file, sections that
 * overlap to multiply work. A safe answer is the extraction with facts (lists cut, entropy null
 * past its budget) or an `executable` error entry (`unreadable`, `timeout`…), within the time
 * limit, the process alive.
 */
import { randomBytes } from "node:crypto";
import { elfWithSymbols, machoWithLoadCommands } from "../helpers/executables.ts";

export interface ExecutableCase {
  name: string;
  filename: string;
  bytes: () => Buffer;
}

interface PeSection {
  name: string;
  virtualAddress: number;
  virtualSize: number;
  rawOffset: number;
  rawSize: number;
}

interface PeOptions {
  sections: PeSection[];
  /** NumberOfSections as declared (defaults to the real count). */
  declaredSections?: number;
  importDirectory?: { rva: number; size: number };
  /** Bytes placed at `at` in the file (the file grows to hold them). */
  body?: { at: number; bytes: Buffer };
  size?: number;
}

const PE_AT = 0x40;
const OPTIONAL_HEADER = 0xf0;

/** A PE32+ image from the PE/COFF specification: DOS stub pointer, COFF header, optional header, section table. */
export function peImage(o: PeOptions): Buffer {
  const tableAt = PE_AT + 24 + OPTIONAL_HEADER;
  const end = Math.max(
    tableAt + 40 * o.sections.length,
    o.body ? o.body.at + o.body.bytes.length : 0,
    o.size ?? 0,
  );
  const file = Buffer.alloc(end);
  file.write("MZ", 0, "latin1");
  file.writeUInt32LE(PE_AT, 0x3c);
  file.write("PE\0\0", PE_AT, "latin1");
  file.writeUInt16LE(0x8664, PE_AT + 4);
  file.writeUInt16LE(o.declaredSections ?? o.sections.length, PE_AT + 6);
  file.writeUInt16LE(OPTIONAL_HEADER, PE_AT + 20);
  file.writeUInt16LE(0x22, PE_AT + 22); // executable, large address aware
  const opt = PE_AT + 24;
  file.writeUInt16LE(0x20b, opt);
  file.writeUInt32LE(0x1000, opt + 16); // entry point
  file.writeBigUInt64LE(0x140000000n, opt + 24);
  file.writeUInt32LE(0x1000, opt + 32);
  file.writeUInt32LE(0x200, opt + 36);
  file.writeUInt32LE(0x100000, opt + 56); // size of image
  file.writeUInt32LE(0x400, opt + 60); // size of headers
  file.writeUInt16LE(3, opt + 68); // console
  file.writeUInt32LE(16, opt + 108);
  if (o.importDirectory) {
    file.writeUInt32LE(o.importDirectory.rva, opt + 120);
    file.writeUInt32LE(o.importDirectory.size, opt + 124);
  }
  o.sections.forEach((s, i) => {
    const at = tableAt + 40 * i;
    file.write(s.name.slice(0, 8), at, "latin1");
    file.writeUInt32LE(s.virtualSize, at + 8);
    file.writeUInt32LE(s.virtualAddress, at + 12);
    file.writeUInt32LE(s.rawSize, at + 16);
    file.writeUInt32LE(s.rawOffset, at + 20);
    file.writeUInt32LE(0x60000020, at + 36);
  });
  o.body?.bytes.copy(file, o.body.at);
  return file;
}

/**
 * An import table of `descriptors` entries, all naming one DLL and one thunk array of `thunks`
 * functions: a few megabytes that declare descriptors × thunks imports.
 */
function hugeImports(descriptors: number, thunks: number): Buffer {
  const va = 0x1000;
  const raw = 0x400;
  const nameRva = va;
  const hintRva = va + 16;
  const thunksRva = va + 32;
  const descriptorsRva = thunksRva + 8 * (thunks + 1);
  const body = Buffer.alloc(descriptorsRva - va + 20 * (descriptors + 1));
  body.write("evil.dll\0", 0, "latin1");
  body.write("\0\0Fn\0", 16, "latin1");
  for (let i = 0; i < thunks; i++) body.writeBigUInt64LE(BigInt(hintRva), 32 + 8 * i);
  for (let i = 0; i < descriptors; i++) {
    const at = descriptorsRva - va + 20 * i;
    body.writeUInt32LE(thunksRva, at);
    body.writeUInt32LE(nameRva, at + 12);
    body.writeUInt32LE(thunksRva, at + 16);
  }
  const section = {
    name: ".idata",
    virtualAddress: va,
    virtualSize: body.length,
    rawOffset: raw,
    rawSize: body.length,
  };
  return peImage({
    sections: [section],
    importDirectory: { rva: descriptorsRva, size: 20 * descriptors },
    body: { at: raw, bytes: body },
  });
}

/** 96 sections (YARA-X's cap) each claiming the whole file: entropy must not read it 96 times. */
function overlappingSections(fileMiB: number): Buffer {
  const size = fileMiB * 1024 * 1024;
  const sections = Array.from({ length: 96 }, (_, i) => ({
    name: `.s${i}`,
    virtualAddress: 0x1000 * (i + 1),
    virtualSize: 0x1000,
    rawOffset: 0,
    rawSize: size,
  }));
  return peImage({ sections, body: { at: 0x4000, bytes: randomBytes(size - 0x4000) } });
}

/** An ELF64 header declaring `shnum` section headers and `phnum` program headers at `shoff`/`phoff`. */
function elfHeader(shnum: number, phnum: number, size: number): Buffer {
  const file = Buffer.alloc(size);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]).copy(file, 0);
  file.writeUInt16LE(3, 16); // shared object
  file.writeUInt16LE(62, 18); // x86-64
  file.writeUInt32LE(1, 20);
  file.writeBigUInt64LE(0x1000n, 24); // entry
  file.writeBigUInt64LE(64n, 32); // phoff: right after the header
  file.writeBigUInt64LE(64n, 40); // shoff: the same bytes
  file.writeUInt16LE(64, 52);
  file.writeUInt16LE(56, 54);
  file.writeUInt16LE(phnum, 56);
  file.writeUInt16LE(64, 58);
  file.writeUInt16LE(shnum, 60);
  file.writeUInt16LE(0, 62);
  // Every header slot the same: a section and a segment covering the whole file.
  for (let at = 64; at + 64 <= size; at += 64) {
    file.writeUInt32LE(1, at + 4); // SHT_PROGBITS / p_flags
    file.writeBigUInt64LE(0n, at + 24);
    file.writeBigUInt64LE(BigInt(size), at + 32);
  }
  return file;
}

/** A universal Mach-O header declaring `count` architectures, cut after the first. */
function truncatedFat(count: number): Buffer {
  const file = Buffer.alloc(8 + 20);
  file.writeUInt32BE(0xcafebabe, 0);
  file.writeUInt32BE(count, 4);
  file.writeUInt32BE(0x01000007, 8);
  file.writeUInt32BE(3, 12);
  file.writeUInt32BE(0x1000, 16);
  file.writeUInt32BE(0x7fffffff, 20);
  file.writeUInt32BE(12, 24);
  return file;
}

/** A DEX header declaring 2^31 strings and 65,535 classes in a file of 0x70 bytes plus a little. */
function hugeDex(): Buffer {
  const file = Buffer.alloc(0x100);
  file.write("dex\n035\0", 0, "latin1");
  file.writeUInt32LE(file.length, 32);
  file.writeUInt32LE(0x70, 36);
  file.writeUInt32LE(0x12345678, 40);
  file.writeUInt32LE(0x7fffffff, 56); // string_ids_size
  file.writeUInt32LE(0x70, 60);
  file.writeUInt32LE(0xffff, 96); // class_defs_size
  file.writeUInt32LE(0x70, 100);
  return file;
}

/** A shortcut whose string data declares 65,535 UTF-16 characters each, in a 200-byte file. */
function lyingShortcut(): Buffer {
  const file = Buffer.alloc(200, 0xff);
  file.writeUInt32LE(0x4c, 0);
  Buffer.from("0114020000000000c000000000000046", "hex").copy(file, 4);
  file.writeUInt32LE(0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80, 20); // every string, Unicode, no LinkInfo
  return file;
}

export const executableCases: ExecutableCase[] = [
  {
    name: "PE declaring 65,535 sections in a 1 KB file",
    filename: "sections.exe",
    bytes: () =>
      peImage({
        sections: [
          { name: ".text", virtualAddress: 0x1000, virtualSize: 0x200, rawOffset: 0x400, rawSize: 0x200 },
        ],
        declaredSections: 0xffff,
        size: 0x600,
      }),
  },
  {
    name: "PE with 50,000 import descriptors sharing one table of 100,000 functions (5 billion imports declared)",
    filename: "imports.exe",
    bytes: () => hugeImports(50_000, 100_000),
  },
  {
    name: "PE whose section points 2 GB past the end of the file",
    filename: "past-eof.exe",
    bytes: () =>
      peImage({
        sections: [
          {
            name: ".text",
            virtualAddress: 0x1000,
            virtualSize: 0x200,
            rawOffset: 0x7ffffff0,
            rawSize: 0x7fffffff,
          },
        ],
        size: 0x600,
      }),
  },
  {
    name: "PE with 96 sections each claiming the whole 8 MiB file (entropy 96 times over)",
    filename: "overlap.exe",
    bytes: () => overlappingSections(8),
  },
  {
    name: "ELF declaring 65,535 section and program headers, all covering the file",
    filename: "headers.so",
    bytes: () => elfHeader(0xffff, 0xffff, 256 * 1024),
  },
  {
    name: "ELF of 2,000,000 symbols (48 MB): the symbol table is cut before parsing",
    filename: "symbols.o",
    bytes: () => elfWithSymbols(2_000_000),
  },
  {
    name: "Mach-O of 200,000 load commands: cut before parsing",
    filename: "commands.macho",
    bytes: () => machoWithLoadCommands(200_000),
  },
  {
    name: "universal Mach-O declaring 1,000,000,000 architectures, cut after the first",
    filename: "fat.macho",
    bytes: () => truncatedFat(1_000_000_000),
  },
  {
    name: "DEX declaring 2^31 strings and 65,535 classes in 256 bytes",
    filename: "huge.dex",
    bytes: hugeDex,
  },
  {
    name: "LNK whose strings each declare 65,535 characters in 200 bytes",
    filename: "lying.lnk",
    bytes: lyingShortcut,
  },
];
