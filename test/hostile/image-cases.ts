/**
 * Hostile images for the thumbnail converter, built in code (no blobs in the repository): headers
 * that lie about their dimensions, decompression bombs, frame floods, SVG entity bombs. Each case
 * names what a safe service must answer: a 400 with one of `codes`, or a thumbnail.
 */
import { bmp24 } from "../helpers/images.ts";

export interface ImageCase {
  name: string;
  bytes: Buffer;
  filename: string;
  query?: string;
  /** Error codes a 400 may carry; `thumbnail` means a 200 PNG is also a right answer. */
  codes: string[];
  /** Extra settings of the server this case runs against (grouped by the test). */
}

/** A BMP whose header says width×height (read as int32, as the format stores them) over tiny pixel data. */
function bmpClaiming(width: number, height: number, pixelBytes = 4096): Buffer {
  const bytes = Buffer.concat([bmp24(1, 1, [1, 2, 3]), Buffer.alloc(pixelBytes)]);
  bytes.writeUInt32LE(width >>> 0, 18);
  bytes.writeUInt32LE(height >>> 0, 22);
  return bytes;
}

export function bmpCases(): ImageCase[] {
  return [
    // bmp-ts reads the width unsigned: 0xFFFFFFFF is 4 gigapixels wide, not 1 (|-1|).
    {
      name: "BMP width 0xFFFFFFFF",
      bytes: bmpClaiming(-1, 1),
      filename: "w.bmp",
      codes: ["image_too_large"],
    },
    {
      name: "BMP width and height 0xFFFFFFFF",
      bytes: bmpClaiming(-1, -1),
      filename: "wh.bmp",
      codes: ["image_too_large"],
    },
    { name: "BMP width 0", bytes: bmpClaiming(0, 10), filename: "w0.bmp", codes: ["invalid_dimensions"] },
    { name: "BMP height 0", bytes: bmpClaiming(10, 0), filename: "h0.bmp", codes: ["invalid_dimensions"] },
    {
      name: "BMP width −2³¹",
      bytes: bmpClaiming(-(2 ** 31), 1),
      filename: "wmin.bmp",
      codes: ["image_too_large"],
    },
    {
      name: "BMP height −2³¹ (top-down, huge)",
      bytes: bmpClaiming(1, -(2 ** 31)),
      filename: "hmin.bmp",
      codes: ["image_too_large"],
    },
    {
      name: "BMP 65536×65536",
      bytes: bmpClaiming(65_536, 65_536),
      filename: "big.bmp",
      codes: ["image_too_large"],
    },
  ];
}
