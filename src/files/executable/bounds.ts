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
const MACHO_MAGICS: Record<number, { little: boolean }> = {
  4277009102: { little: false },
  4277009103: { little: false },
  3472551422: { little: true },
  3489328638: { little: true },
};

/** A table cut: its name, the entries the file declares, and where its count is patched in the copy. */
interface Cut {
  table: string;
  declared: number;
  /** Bytes written over the copy at `at` (the count or size field, with the kept value). */
  at: number;
  bytes: Buffer;
  /** ELF: the section whose size was cut, and its true size. */
  section?: { index: number; size: number };
}

export interface Bounded {
  /** The file YARA-X reads: a cut copy beside the original, or the original. */
  path: string;
  /** Entries each cut table declares (`symbols`, `dynamic_symbols`, `load_commands`). */
  declared: Record<string, number>;
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

/** ELF `.symtab` and `.dynsym` over `max` entries: their section's size cut to `max` entries. */
async function elfCuts(path: string, head: Buffer, max: number): Promise<Cut[]> {
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
  const table = await readAt(path, shoff, count * entsize);
  const cuts: Cut[] = [];
  for (let at = 0; at + entsize <= table.length; at += entsize) {
    const type = little ? table.readUInt32LE(at + 4) : table.readUInt32BE(at + 4);
    if (type !== SHT_SYMTAB && type !== SHT_DYNSYM) continue;
    const sizeAt = at + (wide ? 0x20 : 0x14);
    const size = word(table, sizeAt);
    const symbolSize = word(table, at + (wide ? 0x38 : 0x24));
    if (symbolSize <= 0 || size / symbolSize <= max) continue;
    const kept = Buffer.alloc(wide ? 8 : 4);
    if (wide)
      little
        ? kept.writeBigUInt64LE(BigInt(max * symbolSize))
        : kept.writeBigUInt64BE(BigInt(max * symbolSize));
    else little ? kept.writeUInt32LE(max * symbolSize) : kept.writeUInt32BE(max * symbolSize);
    const name = type === SHT_SYMTAB ? "symbols" : "dynamic_symbols";
    const section = { index: at / entsize, size };
    cuts.push({
      table: name,
      declared: Math.floor(size / symbolSize),
      at: shoff + sizeAt,
      bytes: kept,
      section,
    });
  }
  return cuts;
}

/** A thin Mach-O's load commands over `max`: its header's `ncmds` cut to `max`. */
function machoCuts(head: Buffer, max: number): Cut[] {
  const magic = MACHO_MAGICS[head.readUInt32BE(0)];
  if (!magic || head.length < 20) return [];
  const ncmds = magic.little ? head.readUInt32LE(16) : head.readUInt32BE(16);
  if (ncmds <= max) return [];
  const kept = Buffer.alloc(4);
  magic.little ? kept.writeUInt32LE(max) : kept.writeUInt32BE(max);
  return [{ table: "load_commands", declared: ncmds, at: 16, bytes: kept }];
}

/**
 * The file YARA-X should read for `format`: the original, or a copy (`<path>.bounded`, in the
 * upload's own folder, removed with it) with every table over `max` entries cut to `max`.
 */
export async function boundTables(path: string, format: string, max: number): Promise<Bounded> {
  const head = await readAt(path, 0, 64);
  const cuts =
    format === "elf" && head.length >= 64
      ? await elfCuts(path, head, max)
      : format === "macho"
        ? machoCuts(head, max)
        : [];
  if (cuts.length === 0) return { path, declared: {}, sectionSizes: {} };
  const copy = `${path}.bounded`;
  await copyFile(path, copy);
  const handle = await open(copy, "r+");
  try {
    for (const cut of cuts) await handle.write(cut.bytes, 0, cut.bytes.length, cut.at);
  } finally {
    await handle.close();
  }
  const sectionSizes: Record<number, number> = {};
  for (const c of cuts) if (c.section) sectionSizes[c.section.index] = c.section.size;
  return { path: copy, declared: Object.fromEntries(cuts.map((c) => [c.table, c.declared])), sectionSizes };
}
