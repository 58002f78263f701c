/**
 * BMP input for thumbnails: libvips as shipped with sharp has no BMP loader, so BMP files are
 * decoded by bmp-ts into raw RGBA that sharp takes as is. The size is read from the header first
 * so that a huge BMP is refused before anything is decoded.
 */
import { open } from "node:fs/promises";
import { decode } from "bmp-ts";
import type { Size } from "./geometry.ts";

/** The BITMAPFILEHEADER (14 bytes) plus the start of any DIB header: enough for the dimensions. */
const HEADER_BYTES = 26;

export async function readBmpHeader(input: string | Buffer): Promise<Size | null> {
  let head: Buffer;
  if (typeof input === "string") {
    const fh = await open(input, "r");
    try {
      head = Buffer.alloc(HEADER_BYTES);
      const { bytesRead } = await fh.read(head, 0, HEADER_BYTES, 0);
      head = head.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } else {
    head = input.subarray(0, HEADER_BYTES);
  }
  if (head.length < HEADER_BYTES || head.toString("latin1", 0, 2) !== "BM") return null;
  const dibSize = head.readUInt32LE(14);
  if (dibSize === 12) return { width: head.readUInt16LE(18), height: head.readUInt16LE(20) }; // OS/2 BITMAPCOREHEADER
  return { width: Math.abs(head.readInt32LE(18)), height: Math.abs(head.readInt32LE(22)) };
}

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

/** Decodes a whole BMP to RGBA. Throws on malformed data. */
export function decodeBmp(bytes: Buffer): RawImage {
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
