/**
 * Phone photos are decoded at reduced size where the format allows (JPEG DCT scaling, WebP
 * scaled decoding), as Pillow's draft mode does. That changes pixels, so each strategy's thumbnail
 * must stay within 35 dB PSNR of a full-size decode resized with Lanczos 3, on photo-like images
 * made here at phone sizes (smooth shapes, gradients and sensor grain: flat colours would hide errors).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import type { Strategy } from "../../src/files/converters/geometry.ts";
import { makeThumbnail } from "../../src/files/converters/thumbnail.ts";

const LIMITS = { maxImagePixels: 50_000_000 };

/** RGB pixels of a photo-like scene: upscaled coarse noise (shapes, gradients) plus fine grain. */
async function scene(width: number, height: number): Promise<Buffer> {
  const coarse = await sharp({
    create: {
      width: 48,
      height: 36,
      channels: 3,
      background: "#000",
      noise: { type: "gaussian", mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
  const grain = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: "#000",
      noise: { type: "gaussian", mean: 128, sigma: 12 },
    },
  })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return sharp(coarse)
    .resize(width, height, { kernel: "cubic" })
    .composite([{ input: grain, blend: "overlay" }])
    .removeAlpha()
    .raw()
    .toBuffer();
}

/** The reference: the whole image decoded at full size and oriented, then thumbnailed from a PNG (no reduced decode). */
async function fullDecodeThumbnail(
  input: Buffer,
  req: { width: number; height: number; strategy: Strategy },
) {
  const full = await sharp(input).autoOrient().png({ compressionLevel: 0 }).toBuffer();
  return makeThumbnail(full, req, LIMITS);
}

async function rgb(png: Buffer) {
  return sharp(png).flatten({ background: "#000" }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

function psnr(a: Buffer, b: Buffer): number {
  assert.equal(a.length, b.length, "same size");
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += ((a[i] ?? 0) - (b[i] ?? 0)) ** 2;
  return 10 * Math.log10((255 * 255) / (sum / a.length));
}

describe("phone photos decoded at reduced size", () => {
  it("stays within 35 dB of a full decode: JPEG (upright, EXIF-rotated, 2 MP) and WebP", async () => {
    const pixels = await scene(4032, 3024);
    const photo = () => sharp(pixels, { raw: { width: 4032, height: 3024, channels: 3 } });
    const cases: Array<[string, Buffer, { width: number; height: number; strategy: Strategy }]> = [
      [
        "12 MP JPEG",
        await photo().jpeg({ quality: 90 }).toBuffer(),
        { width: 256, height: 256, strategy: "fit" },
      ],
      [
        "12 MP JPEG, EXIF orientation 6",
        await photo().jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer(),
        { width: 300, height: 200, strategy: "pad" },
      ],
      [
        "2 MP JPEG",
        await photo().resize(1632, 1224).jpeg({ quality: 85 }).toBuffer(),
        { width: 160, height: 160, strategy: "cover" },
      ],
      [
        "2 MP WebP",
        await photo().resize(1632, 1224).webp({ quality: 90 }).toBuffer(),
        { width: 400, height: 400, strategy: "contain" },
      ],
    ];
    for (const [name, bytes, req] of cases) {
      const fast = await rgb(await makeThumbnail(bytes, req, LIMITS));
      const full = await rgb(await fullDecodeThumbnail(bytes, req));
      assert.deepEqual([fast.info.width, fast.info.height], [full.info.width, full.info.height]);
      const db = psnr(fast.data, full.data);
      assert.ok(db >= 35, `${name}, ${req.strategy} ${req.width}×${req.height}: ${db.toFixed(1)} dB`);
    }
  });
});
