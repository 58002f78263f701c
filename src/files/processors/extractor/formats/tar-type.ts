/** A POSIX tar has "ustar" at offset 257 of its first header. */
export function tar(bytes: Buffer): boolean {
  return bytes.length >= 512 && bytes.toString("ascii", 257, 262) === "ustar";
}
