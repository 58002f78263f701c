/**
 * The inputs of `bench compare`, generated from a fixed seed so every run (and the recorded
 * output hashes) sees the same bytes: phone-like photos (smooth gradients, grain, hard edges;
 * flat colours would make decoding unrealistically cheap), small images in six formats, and
 * YARA rule files with small samples that some of them match.
 */
import sharp from "sharp";
import { seeded } from "../../test/helpers/rule-cases.ts";

export { type RuleCase, ruleCases } from "../../test/helpers/rule-cases.ts";

export interface ImageInput {
  name: string;
  bytes: Buffer;
}

interface Shape {
  x: number;
  y: number;
  r: number;
  rgb: [number, number, number];
  round: boolean;
}

/** Raw RGB pixels of a photo-like scene: two-axis gradient, soft waves, shapes with hard edges, grain. */
function photoPixels(width: number, height: number, seed: number): Buffer {
  const rand = seeded(seed);
  const shapes: Shape[] = Array.from({ length: 12 }, () => ({
    x: rand() * width,
    y: rand() * height,
    r: (0.03 + rand() * 0.12) * Math.min(width, height),
    rgb: [rand() * 255, rand() * 255, rand() * 255],
    round: rand() < 0.5,
  }));
  const base = [rand() * 200, rand() * 200, rand() * 200];
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0, i = 0; y < height; y++) {
    const wave = 18 * Math.sin(y / (height / 7));
    for (let x = 0; x < width; x++) {
      const grain = (rand() + rand() + rand() - 1.5) * 14;
      for (let c = 0; c < 3; c++)
        out[i++] = clamp((base[c] ?? 0) + (55 * x) / width + (40 * y) / height + wave * (c - 1) + grain);
    }
  }
  for (const s of shapes) paint(out, width, height, s);
  return out;
}

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);

/** Blends a flat shape over the scene (keeping 20 % of it and its grain): hard edges, as in photos. */
function paint(out: Buffer, width: number, height: number, s: Shape): void {
  const y0 = Math.max(0, Math.floor(s.y - s.r));
  const y1 = Math.min(height, Math.ceil(s.y + s.r));
  const x0 = Math.max(0, Math.floor(s.x - s.r));
  const x1 = Math.min(width, Math.ceil(s.x + s.r));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (s.round && (x - s.x) ** 2 + (y - s.y) ** 2 >= s.r * s.r) continue;
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) out[i + c] = clamp((s.rgb[c] ?? 0) * 0.8 + (out[i + c] ?? 0) * 0.2);
    }
  }
}

const raw = (w: number, h: number, seed: number) =>
  sharp(photoPixels(w, h, seed), { raw: { width: w, height: h, channels: 3 } });

/** A phone screenshot: flat UI bars and cards, rows of "text", one photo inside. */
async function screenshot(width: number, height: number): Promise<Buffer> {
  const rand = seeded(99);
  const px = Buffer.alloc(width * height * 3, 245);
  const fill = (x0: number, y0: number, w: number, h: number, rgb: number[]) => {
    for (let y = y0; y < Math.min(height, y0 + h); y++)
      for (let x = x0; x < Math.min(width, x0 + w); x++) px.set(rgb, (y * width + x) * 3);
  };
  fill(0, 0, width, 140, [30, 30, 34]);
  for (let card = 0; card < 8; card++) {
    const top = 200 + card * 290;
    fill(40, top, width - 80, 250, [255, 255, 255]);
    for (let line = 0; line < 5; line++) {
      let x = 70;
      while (x < width - 120) {
        const word = 20 + Math.floor(rand() * 90);
        fill(x, top + 30 + line * 42, word, 18, [40, 40, 48]);
        x += word + 14;
      }
    }
  }
  const photo = photoPixels(600, 450, 7);
  for (let y = 0; y < 450; y++) photo.copy(px, ((1400 + y) * width + 285) * 3, y * 1800, (y + 1) * 1800);
  return sharp(px, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Phone photos: 12 MP and 2 MP JPEG, a 12 MP portrait stored sideways with EXIF orientation 6, a screenshot. */
export async function phonePhotos(): Promise<ImageInput[]> {
  return [
    { name: "photo-12mp.jpg", bytes: await raw(4032, 3024, 1).jpeg({ quality: 90 }).toBuffer() },
    { name: "photo-2mp.jpg", bytes: await raw(1632, 1224, 2).jpeg({ quality: 90 }).toBuffer() },
    {
      name: "portrait-exif6.jpg",
      bytes: await raw(4032, 3024, 3).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer(),
    },
    { name: "screenshot.png", bytes: await screenshot(1170, 2532) },
  ];
}

/** A 24-bit BMP written by hand: sharp (libvips) has no BMP writer. */
function bmp(pixels: Buffer, width: number, height: number): Buffer {
  const stride = Math.ceil((width * 3) / 4) * 4;
  const out = Buffer.alloc(54 + stride * height);
  out.write("BM", 0, "latin1");
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(stride * height, 34);
  for (let y = 0; y < height; y++) {
    const row = 54 + (height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const s = (y * width + x) * 3;
      out[row + x * 3] = pixels[s + 2] ?? 0;
      out[row + x * 3 + 1] = pixels[s + 1] ?? 0;
      out[row + x * 3 + 2] = pixels[s] ?? 0;
    }
  }
  return out;
}

/** Small images (≤ 640 px) in PNG, JPEG, GIF, WebP, TIFF and BMP, two sizes each. */
export async function smallImages(): Promise<ImageInput[]> {
  const sizes: Array<[number, number]> = [
    [640, 480],
    [320, 427],
  ];
  const images: ImageInput[] = [];
  for (const [k, [w, h]] of sizes.entries()) {
    const seed = 20 + k;
    images.push(
      { name: `small-${w}x${h}.png`, bytes: await raw(w, h, seed).png().toBuffer() },
      {
        name: `small-${w}x${h}.jpg`,
        bytes: await raw(w, h, seed + 1)
          .jpeg({ quality: 90 })
          .toBuffer(),
      },
      {
        name: `small-${w}x${h}.gif`,
        bytes: await raw(w, h, seed + 2)
          .gif()
          .toBuffer(),
      },
      {
        name: `small-${w}x${h}.webp`,
        bytes: await raw(w, h, seed + 3)
          .webp({ quality: 90 })
          .toBuffer(),
      },
      {
        name: `small-${w}x${h}.tiff`,
        bytes: await raw(w, h, seed + 4)
          .tiff()
          .toBuffer(),
      },
      { name: `small-${w}x${h}.bmp`, bytes: bmp(photoPixels(w, h, seed + 5), w, h) },
    );
  }
  return images;
}
