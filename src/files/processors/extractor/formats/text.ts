/** Plain text, CSV, JSON, source code: encoding from the BOM, else detected (UTF-8/16, Latin-1, Windows-1252). */
import chardet from "chardet";
import type { Extracted } from "../result.ts";

export function decodeText(bytes: Buffer): { text: string; encoding: string } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { text: bytes.subarray(3).toString("utf8"), encoding: "UTF-8" };
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return { text: new TextDecoder("utf-16le").decode(bytes.subarray(2)), encoding: "UTF-16LE" };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: new TextDecoder("utf-16be").decode(bytes.subarray(2)), encoding: "UTF-16BE" };
  if (isValidUtf8(bytes)) return { text: bytes.toString("utf8"), encoding: "UTF-8" };
  const guess = (chardet.detect(bytes.subarray(0, 65536)) ?? "windows-1252").toLowerCase();
  const label = guess.startsWith("utf-16")
    ? guess
    : guess.includes("8859-1")
      ? "iso-8859-1"
      : guess === "ascii"
        ? "utf-8"
        : "windows-1252";
  try {
    return { text: new TextDecoder(label).decode(bytes), encoding: label.toUpperCase() };
  } catch {
    return { text: new TextDecoder("windows-1252").decode(bytes), encoding: "WINDOWS-1252" };
  }
}

function isValidUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Without a BOM, UTF-16 text shows as every other byte zero — and the bytes between them not
 * zero: a run of zero bytes is not text (taken for UTF-16, 100 MiB of zeros became 50 million
 * characters of NUL).
 */
export function looksLikeUtf16(bytes: Buffer): boolean {
  const sample = bytes.subarray(0, 4096);
  const pairs = sample.length / 2;
  let zerosOdd = 0;
  let zerosEven = 0;
  for (let i = 0; i + 1 < sample.length; i += 2) {
    if (sample[i] === 0) zerosEven++;
    if (sample[i + 1] === 0) zerosOdd++;
  }
  return sample.length >= 16 && zerosOdd > pairs * 0.8 && zerosEven < pairs * 0.2;
}

export function looksLikeText(bytes: Buffer): boolean {
  if (bytes.length === 0) return true;
  if (
    (bytes[0] === 0xff && bytes[1] === 0xfe) ||
    (bytes[0] === 0xfe && bytes[1] === 0xff) ||
    looksLikeUtf16(bytes)
  )
    return true;
  const sample = bytes.subarray(0, 8192);
  let control = 0;
  for (const b of sample) {
    if (b === 0) return false;
    if (b < 9 || (b > 13 && b < 32)) control++;
  }
  return control / sample.length < 0.02;
}

/**
 * Decodes at most the bytes that can make `maxChars` characters (4 bytes each at most): a huge
 * text entry costs its share of the budget, never a string as large as itself.
 */
export function extractText(whole: Buffer, maxChars = Number.POSITIVE_INFINITY): Extracted {
  const bytes = whole.length / 4 > maxChars ? whole.subarray(0, maxChars * 4) : whole;
  const decoded =
    looksLikeUtf16(bytes) && !(bytes[0] === 0xff || bytes[0] === 0xfe)
      ? { text: new TextDecoder("utf-16le").decode(bytes), encoding: "UTF-16LE" }
      : decodeText(bytes);
  return {
    text: decoded.text,
    extra: { text: { encoding: decoded.encoding, line_count: decoded.text.split("\n").length } },
  };
}
