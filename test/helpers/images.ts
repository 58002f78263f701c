/** Images made in code for the thumbnail tests: no binary fixtures in the repository. */
import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";

export const RED = { r: 255, g: 0, b: 0, alpha: 1 };
export const BLUE = { r: 0, g: 0, b: 255, alpha: 1 };

export function solid(width: number, height: number, background = BLUE, channels: 3 | 4 = 3) {
  return sharp({ create: { width, height, channels, background } });
}

export async function pixelAt(png: Buffer, x: number, y: number): Promise<[number, number, number, number]> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * 4;
  return [data[i] ?? -1, data[i + 1] ?? -1, data[i + 2] ?? -1, data[i + 3] ?? -1];
}

export async function sizeOf(png: Buffer): Promise<{ width: number; height: number; format: string }> {
  const m = await sharp(png).metadata();
  return { width: m.width ?? 0, height: m.height ?? 0, format: m.format ?? "" };
}

/** One PNG chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid PNG header claiming width×height with almost no pixel data: a decompression bomb's first bytes. */
export function pngBombHeader(width: number, height: number): Buffer {
  const chunk = pngChunk;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.alloc(1024))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A 24-bit uncompressed BMP (bottom-up rows padded to 4 bytes), written by hand from the format. */
export function bmp24(width: number, height: number, rgb: [number, number, number]): Buffer {
  const rowSize = Math.ceil((width * 3) / 4) * 4;
  const pixelBytes = rowSize * height;
  const out = Buffer.alloc(54 + pixelBytes);
  out.write("BM", 0, "latin1");
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10); // pixel data offset
  out.writeUInt32LE(40, 14); // BITMAPINFOHEADER
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26); // planes
  out.writeUInt16LE(24, 28); // bits per pixel
  out.writeUInt32LE(pixelBytes, 34);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = 54 + y * rowSize + x * 3;
      out[p] = rgb[2];
      out[p + 1] = rgb[1];
      out[p + 2] = rgb[0];
    }
  }
  return out;
}
