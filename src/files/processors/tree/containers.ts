/**
 * Whether a file can hold children, from its first bytes: the containers the extractor takes
 * children out of (ZIP and the formats built on it, 7z, RAR, gzip/xz/bzip2, tar, CAB, ISO 9660,
 * OLE compound files, PDF, RTF, e-mail). A processor that reads only children skips the walk for
 * anything else — the extraction would cost more than the scan itself on a flat file.
 */
import { looksLikeEmail } from "../extractor/formats/email.ts";

const MAGIC: Array<[offset: number, bytes: number[]]> = [
  [0, [0x50, 0x4b, 0x03, 0x04]], // ZIP, OOXML, ODF, JAR, APK, EPUB
  [0, [0x50, 0x4b, 0x05, 0x06]], // an empty ZIP
  [0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]], // 7z
  [0, [0x52, 0x61, 0x72, 0x21]], // RAR
  [0, [0x1f, 0x8b]], // gzip
  [0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]], // xz
  [0, [0x42, 0x5a, 0x68]], // bzip2
  [0, [0x4d, 0x53, 0x43, 0x46]], // CAB
  [0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]], // OLE: DOC, XLS, PPT, MSG, MSI
  [257, [0x75, 0x73, 0x74, 0x61, 0x72]], // tar ("ustar")
  [0x8001, [0x43, 0x44, 0x30, 0x30, 0x31]], // ISO 9660 ("CD001")
  [0, [0x7b, 0x5c, 0x72, 0x74]], // RTF ("{\rt"): embedded objects
];

export function mayHoldChildren(head: Buffer): boolean {
  if (MAGIC.some(([at, bytes]) => bytes.every((b, i) => head[at + i] === b))) return true;
  // pdf.js, like readers, finds the header within the first kilobyte.
  if (head.subarray(0, 1024).includes("%PDF-")) return true;
  return looksLikeEmail(head);
}
