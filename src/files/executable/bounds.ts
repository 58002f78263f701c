/**
 * Tables a hostile executable can inflate, cut before YARA-X reads them: its modules parse every
 * entry (two million ELF symbols held a thread 30 s and took 1.3 GB). The headers are read here;
 * when a table is over the bound, YARA-X reads a copy whose header declares only the first entries
 * (the original file is never changed), and the true counts are reported with the cut.
 */
import { copyFile, open } from "node:fs/promises";

const SHT_SYMTAB = 2;
const SHT_DYNSYM = 11;
/** Section headers read at most (e_shnum is 16 bits: 65,535 × 64 bytes). */
const MAX_HEADER_BYTES = 65_535 * 64;
const FAT_MAGIC = 0xcafebabe;
const FAT_MAGIC_64 = 0xcafebabf;
/** Slices of a universal Mach-O looked at (the format's tools write a handful). */
const FAT_SLICES = 64;
/** Thin Mach-O magics (read big-endian) and whether the file is little-endian. */
const MACHO_MAGICS = new Map([
  [0xfeedface, false],
  [0xfeedfacf, false],
  [0xcefaedfe, true],
  [0xcffaedfe, true],
]);

/** A table: its name, the entries the file declares, and (over the bound) how the copy cuts it. */
interface Table {
  table: string;
  declared: number;
  /** Bytes written over the copy at `at` (the count or size field, with the `kept` entries). */
  cut?: { at: number; bytes: Buffer; kept: number };
  /** ELF: the section holding it, and its true size. */
  section?: { index: number; size: number };
}

export interface Bounded {
  /** The file YARA-X reads: a cut copy beside the original, or the original. */
  path: string;
  /** Entries each cut table declares (`symbols`, `dynamic_symbols`, `load_commands`) and YARA-X reads. */
  declared: Record<string, { declared: number; read: number }>;
  /** Entries every table read from the headers declares, cut or not. */
  tables: Record<string, number>;
  /** ELF: true sizes of the sections cut in the copy, by section index. */
  sectionSizes: Record<number, number>;
}

async function readAt(path: string, at: number, length: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, at);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** ELF `.symtab` and `.dynsym`; over `max` entries, their section's size is cut to `max` entries. */
async function elfTables(path: string, head: Buffer, max: number): Promise<Table[]> {
  const wide = head[4] === 2;
  const little = head[5] !== 2;
  const u16 = (b: Buffer, at: number) => (little ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const word = (b: Buffer, at: number) =>
    wide
      ? Number(little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at))
      : little
        ? b.readUInt32LE(at)
        : b.readUInt32BE(at);
  const shoff = word(head, wide ? 0x28 : 0x20);
  const entsize = u16(head, wide ? 0x3a : 0x2e);
  const count = u16(head, wide ? 0x3c : 0x30);
  if (shoff === 0 || entsize < (wide ? 64 : 40) || count * entsize > MAX_HEADER_BYTES) return [];
  const headers = await readAt(path, shoff, count * entsize);
  const cuts: Table[] = [];
  // One bound per kind over all its sections: 65,535 sections may all point at the same symbols.
  const left: Record<string, number> = { symbols: max, dynamic_symbols: max };
  for (let at = 0; at + entsize <= headers.length; at += entsize) {
    const type = little ? headers.readUInt32LE(at + 4) : headers.readUInt32BE(at + 4);
    if (type !== SHT_SYMTAB && type !== SHT_DYNSYM) continue;
    const sizeAt = at + (wide ? 0x20 : 0x14);
    const size = word(headers, sizeAt);
    const symbolSize = word(headers, at + (wide ? 0x38 : 0x24));
    if (symbolSize <= 0) continue;
    const declared = Math.floor(size / symbolSize);
    const name = type === SHT_SYMTAB ? "symbols" : "dynamic_symbols";
    const table: Table = { table: name, declared, section: { index: at / entsize, size } };
    const keep = Math.min(declared, left[name] ?? 0);
    left[name] = (left[name] ?? 0) - keep;
    if (keep < declared) {
      const kept = Buffer.alloc(wide ? 8 : 4);
      if (wide)
        little
          ? kept.writeBigUInt64LE(BigInt(keep * symbolSize))
          : kept.writeBigUInt64BE(BigInt(keep * symbolSize));
      else little ? kept.writeUInt32LE(keep * symbolSize) : kept.writeUInt32BE(keep * symbolSize);
      table.cut = { at: shoff + sizeAt, bytes: kept, kept: keep };
    }
    cuts.push(table);
  }
  return cuts;
}

/** A Mach-O header's load commands at `at`; over `max`, its `ncmds` is cut to `max`. */
function machoTable(head: Buffer, at: number, max: number): Table | null {
  const little = head.length >= 20 ? MACHO_MAGICS.get(head.readUInt32BE(0)) : undefined;
  if (little === undefined) return null;
  const ncmds = little ? head.readUInt32LE(16) : head.readUInt32BE(16);
  const table: Table = { table: "load_commands", declared: ncmds };
  if (ncmds > max) {
    const kept = Buffer.alloc(4);
    little ? kept.writeUInt32LE(max) : kept.writeUInt32BE(max);
    table.cut = { at: at + 16, bytes: kept, kept: max };
  }
  return table;
}

/** Load commands of a thin Mach-O, or of each slice of a universal one (its first FAT_SLICES). */
async function machoTables(path: string, head: Buffer, max: number): Promise<Table[]> {
  const thin = machoTable(head, 0, max);
  if (thin) return [thin];
  const magic = head.length >= 8 ? head.readUInt32BE(0) : 0;
  if (magic !== FAT_MAGIC && magic !== FAT_MAGIC_64) return [];
  const entry = magic === FAT_MAGIC ? 20 : 32;
  const slices = Math.min(head.readUInt32BE(4), FAT_SLICES);
  const archs = await readAt(path, 8, slices * entry);
  const tables: Table[] = [];
  for (let at = 0; at + entry <= archs.length; at += entry) {
    const offset = magic === FAT_MAGIC ? archs.readUInt32BE(at + 8) : Number(archs.readBigUInt64BE(at + 8));
    const table = machoTable(await readAt(path, offset, 32), offset, max);
    if (table) tables.push(table);
  }
  return tables;
}

/**
 * The file YARA-X should read for `format`: the original, or a copy (`<path>.bounded`, in the
 * upload's own folder, removed after the scan) whose tables declare `max` entries at most (ELF:
 * all symbol sections together).
 */
export async function boundTables(path: string, format: string, max: number): Promise<Bounded> {
  const head = await readAt(path, 0, 64);
  const found =
    format === "elf" && head.length >= 64
      ? await elfTables(path, head, max)
      : format === "macho"
        ? await machoTables(path, head, max)
        : [];
  const tables: Record<string, number> = {};
  for (const t of found) tables[t.table] = (tables[t.table] ?? 0) + t.declared;
  const cuts = found.filter((t) => t.cut);
  if (cuts.length === 0) return { path, declared: {}, tables, sectionSizes: {} };
  const copy = `${path}.bounded`;
  await copyFile(path, copy);
  const handle = await open(copy, "r+");
  try {
    for (const { cut } of cuts) if (cut) await handle.write(cut.bytes, 0, cut.bytes.length, cut.at);
  } finally {
    await handle.close();
  }
  const sectionSizes: Record<number, number> = {};
  for (const c of cuts) if (c.section) sectionSizes[c.section.index] = c.section.size;
  const declared: Bounded["declared"] = {};
  for (const name of new Set(cuts.map((c) => c.table))) {
    const all = found.filter((t) => t.table === name);
    const read = all.reduce((n, t) => n + (t.cut ? t.cut.kept : t.declared), 0);
    declared[name] = { declared: tables[name] ?? 0, read };
  }
  return { path: copy, declared, tables, sectionSizes };
}
