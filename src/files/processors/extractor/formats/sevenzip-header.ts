/**
 * Reads, from a 7z archive's bytes, the key-derivation cost its encrypted header asks for (the 7zAES
 * coder's NumCyclesPower: 2^N SHA-256 rounds per password), before 7-Zip derives any key: an archive
 * can ask for 2^24 rounds, seconds per password. Only a header stored as is, or encoded (`-mhe`,
 * `-mhc`), is read; a compressed header's coders are read from 7-Zip's listing instead (`7zAES:N`).
 */

const SIGNATURE = Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]);
const AES_CODER = "06f10701";
const K_END = 0x00;
const K_HEADER = 0x01;
const K_ARCHIVE_PROPERTIES = 0x02;
const K_MAIN_STREAMS_INFO = 0x04;
const K_PACK_INFO = 0x06;
const K_UNPACK_INFO = 0x07;
const K_SIZE = 0x09;
const K_CRC = 0x0a;
const K_FOLDER = 0x0b;
const K_ENCODED_HEADER = 0x17;
/** Coders and folders read at most: more is not a header 7-Zip writes. */
const MAX_ITEMS = 4096;

class Reader {
  readonly bytes: Buffer;
  at: number;
  constructor(bytes: Buffer, at: number) {
    this.bytes = bytes;
    this.at = at;
  }

  byte(): number {
    const b = this.bytes[this.at++];
    if (b === undefined) throw new RangeError("past the end");
    return b;
  }

  /** 7z's NUMBER: the first byte's leading one bits count the bytes that follow. */
  number(): number {
    const first = this.byte();
    let value = 0;
    for (let i = 0; i < 8; i++) {
      const mask = 0x80 >> i;
      if ((first & mask) === 0) return value + (first & (mask - 1)) * 2 ** (8 * i);
      value += this.byte() * 2 ** (8 * i);
    }
    return value;
  }

  skip(n: number): void {
    if (n > this.bytes.length - this.at) throw new RangeError("past the end");
    this.at += n;
  }
}

/** A folder's coders: the NumCyclesPower of each 7zAES coder among them. */
function folderPowers(r: Reader, powers: number[]): void {
  const coders = r.number();
  if (coders > MAX_ITEMS) throw new RangeError("too many coders");
  let inStreams = 0;
  let outStreams = 0;
  for (let c = 0; c < coders; c++) {
    const flags = r.byte();
    const id = r.bytes.subarray(r.at, r.at + (flags & 0x0f)).toString("hex");
    r.skip(flags & 0x0f);
    const complex = (flags & 0x10) !== 0;
    inStreams += complex ? r.number() : 1;
    outStreams += complex ? r.number() : 1;
    if (flags & 0x20) {
      const size = r.number();
      if (id === AES_CODER && size > 0) powers.push((r.bytes[r.at] ?? 0) & 0x3f);
      r.skip(size);
    }
  }
  // Bind pairs: an in index and an out index each.
  for (let b = 0; b < 2 * (outStreams - 1); b++) r.number();
  const packed = inStreams - (outStreams - 1);
  if (packed > 1) for (let p = 0; p < packed; p++) r.number();
}

/** A digests record: "all defined", else a bit per stream, then a CRC per defined stream. */
function skipDigests(r: Reader, streams: number): void {
  let defined = streams;
  if (r.byte() === 0) {
    defined = 0;
    for (let b = 0; b < Math.ceil(streams / 8); b++)
      defined += r.byte().toString(2).replaceAll("0", "").length;
  }
  r.skip(4 * defined);
}

/** StreamsInfo up to its folders' coders (the rest is not needed). */
function streamsPowers(r: Reader, powers: number[]): void {
  let id = r.byte();
  if (id === K_PACK_INFO) {
    r.number();
    const streams = r.number();
    for (id = r.byte(); id !== K_END; id = r.byte()) {
      if (id === K_SIZE) for (let s = 0; s < streams; s++) r.number();
      else if (id === K_CRC) skipDigests(r, streams);
      else r.skip(r.number()); // another property: skipped by its size, as 7-Zip does
    }
    id = r.byte();
  }
  if (id !== K_UNPACK_INFO || r.byte() !== K_FOLDER) return;
  const folders = r.number();
  if (folders > MAX_ITEMS || r.byte() !== 0) return;
  for (let f = 0; f < folders; f++) folderPowers(r, powers);
}

/**
 * The NumCyclesPower values the readable part of the header names, and whether the header itself
 * is encrypted (then its names are too); null when the bytes are not a 7z archive this can read.
 */
export function sevenZipKeyPowers(bytes: Buffer): { powers: number[]; headerEncrypted: boolean } | null {
  if (bytes.length < 32 || !bytes.subarray(0, 6).equals(SIGNATURE)) return null;
  const offset = Number(bytes.readBigUInt64LE(12));
  const r = new Reader(bytes, 32 + offset);
  const powers: number[] = [];
  try {
    const kind = r.byte();
    if (kind === K_ENCODED_HEADER) {
      streamsPowers(r, powers);
      return { powers, headerEncrypted: powers.length > 0 };
    }
    if (kind !== K_HEADER) return null;
    let id = r.byte();
    if (id === K_ARCHIVE_PROPERTIES) {
      while (r.number() !== K_END) r.skip(r.number());
      id = r.byte();
    }
    if (id === K_MAIN_STREAMS_INFO) streamsPowers(r, powers);
    return { powers, headerEncrypted: false };
  } catch {
    return null;
  }
}
