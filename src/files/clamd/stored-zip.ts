/**
 * A stored (uncompressed) zip of files already read, as a list of buffers: the members' own bytes
 * between small headers, nothing copied. Each member's size and CRC-32 (zlib's, native) are in its
 * local header, before its bytes.
 *
 * Written here because neither of fflate's packers fits the batches clamd scans: zipSync computes
 * CRC-32 in JavaScript on the event loop (63–71 ms for 20 MB, every other request waiting), and
 * its streaming Zip gives each size after the bytes, in a data descriptor, which clamd does not
 * read for stored members: it passed them as clean (test/files/clamd-batch.test.ts).
 *
 * No zip64: ZIP_MAX_MEMBERS members and under 4 GiB in all (batch.ts cuts its batches there; its
 * byte bound, FILES_ANTIVIRUS_BATCH_BYTES, is far below).
 */
import { crc32 } from "node:zlib";

export interface ZipMember {
  /** ASCII (the batches name members by their index). */
  name: string;
  bytes: Buffer;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const VERSION = 20; // 2.0: what a stored member needs
const DOS_DATE_1980_01_01 = (0 << 9) | (1 << 5) | 1;
/** Members one zip holds at most (the end record counts them in 16 bits). */
export const ZIP_MAX_MEMBERS = 0xfffe;
const MAX_OFFSET = 0xffffffff;

interface Written {
  name: Buffer;
  crc: number;
  size: number;
  offset: number;
}

export function storedZip(members: ZipMember[]): Buffer[] {
  if (members.length > ZIP_MAX_MEMBERS)
    throw new RangeError(`a stored zip holds ${ZIP_MAX_MEMBERS} members at most`);
  const out: Buffer[] = [];
  const written: Written[] = [];
  let offset = 0;
  for (const { name, bytes } of members) {
    const entry = { name: Buffer.from(name, "latin1"), crc: crc32(bytes), size: bytes.length, offset };
    const header = localHeader(entry);
    out.push(header, bytes);
    written.push(entry);
    offset += header.length + bytes.length;
  }
  const central = written.map(centralHeader);
  const centralSize = central.reduce((sum, b) => sum + b.length, 0);
  if (offset + centralSize > MAX_OFFSET) throw new RangeError("a stored zip stays under 4 GiB");
  out.push(...central, endOfCentralDirectory(written.length, centralSize, offset));
  return out;
}

/** Signature, version, flags 0, method 0 (stored), time and date, CRC-32, sizes, name. */
function localHeader(e: Written): Buffer {
  const b = Buffer.alloc(30 + e.name.length);
  b.writeUInt32LE(LOCAL_HEADER, 0);
  b.writeUInt16LE(VERSION, 4);
  b.writeUInt16LE(DOS_DATE_1980_01_01, 12);
  b.writeUInt32LE(e.crc, 14);
  b.writeUInt32LE(e.size, 18);
  b.writeUInt32LE(e.size, 22);
  b.writeUInt16LE(e.name.length, 26);
  e.name.copy(b, 30);
  return b;
}

function centralHeader(e: Written): Buffer {
  const b = Buffer.alloc(46 + e.name.length);
  b.writeUInt32LE(CENTRAL_HEADER, 0);
  b.writeUInt16LE(VERSION, 4); // made by
  b.writeUInt16LE(VERSION, 6); // needed
  b.writeUInt16LE(DOS_DATE_1980_01_01, 14);
  b.writeUInt32LE(e.crc, 16);
  b.writeUInt32LE(e.size, 20);
  b.writeUInt32LE(e.size, 24);
  b.writeUInt16LE(e.name.length, 28);
  b.writeUInt32LE(e.offset, 42);
  e.name.copy(b, 46);
  return b;
}

function endOfCentralDirectory(count: number, centralSize: number, centralOffset: number): Buffer {
  const b = Buffer.alloc(22);
  b.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  b.writeUInt16LE(count, 8);
  b.writeUInt16LE(count, 10);
  b.writeUInt32LE(centralSize, 12);
  b.writeUInt32LE(centralOffset, 16);
  return b;
}
