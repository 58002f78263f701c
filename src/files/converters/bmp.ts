/**
 * BMP input for thumbnails: libvips as shipped with sharp has no BMP loader, so BMP files are
 * decoded by bmp-ts into raw RGBA that sharp takes as is. The header is read here exactly as
 * bmp-ts reads it (width unsigned, height signed), so the size checked is the size it allocates.
 * Run-length data (RLE8, RLE4) is walked first: bmp-ts fills and walks the whole declared image,
 * seconds for 100 megapixels that a few bytes of skips "encode", so such a header is refused before.
 */
import { open } from "node:fs/promises";
import { decode } from "bmp-ts";
import { decodeBmp24 } from "./bmp24.ts";
import type { Size } from "./geometry.ts";

/** The BITMAPFILEHEADER (14 bytes) plus the start of any DIB header: enough for the dimensions. */
const HEADER_BYTES = 26;
/** DIB header sizes bmp-ts decodes (BITMAPINFOHEADER and its V2–V5 successors). */
const DECODABLE_DIB_SIZES = new Set([40, 52, 56, 108, 124]);

export type BmpHeader = { kind: "bmp"; size: Size } | { kind: "undecodable"; reason: string } | null;

/** The dimensions bmp-ts will decode, or null when the bytes are not a BMP at all. */
export async function readBmpHeader(input: string | Buffer): Promise<BmpHeader> {
  const head = typeof input === "string" ? await readHead(input) : input.subarray(0, HEADER_BYTES);
  if (head.length < HEADER_BYTES || head.toString("latin1", 0, 2) !== "BM") return null;
  const dibSize = head.readUInt32LE(14);
  if (!DECODABLE_DIB_SIZES.has(dibSize)) {
    return {
      kind: "undecodable",
      reason: `BMP header of ${dibSize} bytes (OS/2 or unknown) is not supported`,
    };
  }
  // bmp-ts: width = readUInt32LE, height = readUInt32LE reinterpreted as int32, negated when negative.
  return { kind: "bmp", size: { width: head.readUInt32LE(18), height: Math.abs(head.readInt32LE(22)) } };
}

async function readHead(file: string): Promise<Buffer> {
  const fh = await open(file, "r");
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await fh.read(head, 0, HEADER_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

const BI_RLE8 = 1;
const BI_RLE4 = 2;
/** Declared pixels per pixel a run-length BMP's data draws, at most (the rest is skipped: blank). */
const RLE_DECLARED_PER_DRAWN = 16;
/** Declared pixels allowed on top, whatever the data draws (small images are always decoded). */
const RLE_SLACK = 1_048_576;

/**
 * How many pixels a run-length BMP's data draws (runs and literal pixels; line ends, skips and an
 * early end draw none), walking its commands without writing a pixel (linear in its bytes); null
 * when the BMP is not run-length encoded. Drawing stops counting once the rows are all passed.
 */
export function rleDrawn(bytes: Buffer, size: Size): number | null {
  if (bytes.length < 54) return null;
  const compression = bytes.readUInt32LE(30);
  if (compression !== BI_RLE8 && compression !== BI_RLE4) return null;
  const perByte = compression === BI_RLE8 ? 1 : 2;
  let at = bytes.readUInt32LE(10);
  let drawn = 0;
  let y = 0;
  while (at + 1 < bytes.length && y < size.height) {
    const count = bytes[at] ?? 0;
    const value = bytes[at + 1] ?? 0;
    at += 2;
    if (count > 0) drawn += count;
    else if (value === 0)
      y++; // end of line
    else if (value === 1)
      break; // end of bitmap
    else if (value === 2) {
      y += bytes[at + 1] ?? 0; // a skip right and down
      at += 2;
    } else {
      drawn += value;
      const literal = Math.ceil(value / perByte);
      at += literal + (literal % 2);
    }
  }
  return drawn;
}

/**
 * Why a run-length BMP is refused, or null: bmp-ts's work follows the declared pixels, so a header
 * declaring far more than the data draws (by skips, line ends or an early end) is not decoded.
 */
export function rleRefusal(bytes: Buffer, size: Size): string | null {
  const drawn = rleDrawn(bytes, size);
  const declared = size.width * size.height;
  if (drawn === null || declared <= RLE_DECLARED_PER_DRAWN * drawn + RLE_SLACK) return null;
  return `The BMP's run-length data draws ${drawn} of the ${declared} pixels its header declares: not decoded.`;
}

export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Decodes a whole BMP to RGBA (CPU-bound: run it in a thumbnail process). Throws on malformed data. */
export function decodeBmp(bytes: Buffer): RawImage {
  const knownHeader = bytes.length >= HEADER_BYTES && DECODABLE_DIB_SIZES.has(bytes.readUInt32LE(14));
  const fast = knownHeader ? decodeBmp24(bytes) : null;
  if (fast) return fast;
  const bmp = decode(bytes, { toRGBA: true });
  if (bmp.data.length < bmp.width * bmp.height * 4) throw new Error("truncated BMP pixel data");
  makeOpaqueWhenAlphaUnused(bmp.data);
  return { data: bmp.data, width: bmp.width, height: bmp.height };
}

/**
 * Most BMPs carry no alpha (24-bit, or 32-bit with the fourth byte unused) and the decoder leaves
 * it at 0; like browsers, treat an all-zero alpha channel as opaque.
 */
function makeOpaqueWhenAlphaUnused(rgba: Buffer): void {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 0) return;
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
}
