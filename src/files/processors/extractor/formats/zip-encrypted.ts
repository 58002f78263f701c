/**
 * Which entries of a ZIP are encrypted (ZipCrypto or WinZip AES), read from the central directory:
 * bit 0 of an entry's general purpose flags. fflate cannot decrypt; these entries go to 7-Zip.
 * Only the end record and the directory are read, each header bounds-checked.
 */

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const EOCD_MIN = 22;
/** The end record sits in the last 22 bytes plus a comment of at most 65,535. */
const EOCD_SEARCH = EOCD_MIN + 0xffff;

function endRecord(bytes: Buffer): number {
  const floor = Math.max(0, bytes.length - EOCD_SEARCH);
  for (let i = bytes.length - EOCD_MIN; i >= floor; i--) if (bytes.readUInt32LE(i) === EOCD) return i;
  return -1;
}

/** Names of the encrypted entries (at most `maxEntries` headers are read); empty when none or unreadable. */
export function encryptedZipEntries(bytes: Buffer, maxEntries: number): Set<string> {
  const names = new Set<string>();
  const end = bytes.length >= EOCD_MIN ? endRecord(bytes) : -1;
  if (end < 0) return names;
  const count = Math.min(bytes.readUInt16LE(end + 10), maxEntries);
  let offset = bytes.readUInt32LE(end + 16);
  for (let i = 0; i < count && offset + 46 <= bytes.length; i++) {
    if (bytes.readUInt32LE(offset) !== CENTRAL) break;
    const flags = bytes.readUInt16LE(offset + 8);
    const nameLength = bytes.readUInt16LE(offset + 28);
    const extraLength = bytes.readUInt16LE(offset + 30);
    const commentLength = bytes.readUInt16LE(offset + 32);
    const nameEnd = offset + 46 + nameLength;
    if (nameEnd > bytes.length) break;
    // Bit 11: the name is UTF-8; otherwise CP437, which fflate decodes as latin1 for ASCII-range names too.
    const encoding = flags & 0x800 ? "utf8" : "latin1";
    if (flags & 1) names.add(bytes.toString(encoding, offset + 46, nameEnd));
    offset = nameEnd + extraLength + commentLength;
  }
  return names;
}
