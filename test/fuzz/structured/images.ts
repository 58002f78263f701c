/**
 * Image headers for the structure-aware fuzz: PNG, BMP, GIF, JPEG, TIFF and WebP files written
 * field by field, so that width, height, bit depth, component counts and chunk lengths take
 * extreme, zero, negative or lying values while the rest of the file stays well formed (CRCs
 * right unless the case asks otherwise) — the shape that gets past a format check.
 */
import { crc32, deflateSync } from "node:zlib";
import fc from "fast-check";

export interface ImageCase {
  format: "png" | "bmp" | "gif" | "jpeg" | "tiff" | "webp";
  width: number;
  height: number;
  depth: number;
  /** Added to a length field (0 = truthful). */
  lengthSkew: number;
  /** A second numeric knob per format (colour type, compression, components, IFD count…). */
  extra: number;
}

/** Dimensions that trip parsers: zero, one, sign bits, 16/24/32-bit edges, big squares. */
const DIMENSION = fc.oneof(
  fc.constantFrom(
    0,
    1,
    0x7fff,
    0x8000,
    0xffff,
    0x10000,
    0xffffff,
    0x7fffffff,
    0x80000000,
    0xffffffff,
    70_000,
  ),
  fc.integer({ min: 1, max: 4096 }),
);

export const imageCase: fc.Arbitrary<ImageCase> = fc.record({
  format: fc.constantFrom("png", "bmp", "gif", "jpeg", "tiff", "webp") as fc.Arbitrary<ImageCase["format"]>,
  width: DIMENSION,
  height: DIMENSION,
  depth: fc.constantFrom(0, 1, 2, 4, 8, 16, 24, 32, 64, 255),
  lengthSkew: fc.oneof(
    fc.constant(0),
    fc.constant(0),
    fc.integer({ min: -64, max: 64 }),
    fc.constant(0x7fffffff),
  ),
  extra: fc.nat(255),
});

export function buildImage(c: ImageCase): Buffer {
  switch (c.format) {
    case "png":
      return png(c);
    case "bmp":
      return bmp(c);
    case "gif":
      return gif(c);
    case "jpeg":
      return jpeg(c);
    case "tiff":
      return tiff(c);
    case "webp":
      return webp(c);
  }
}

function chunk(type: string, data: Buffer, skew = 0, badCrc = false): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE((data.length + skew) >>> 0, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(badCrc ? 0 : crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function png(c: ImageCase): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(c.width >>> 0, 0);
  ihdr.writeUInt32BE(c.height >>> 0, 4);
  ihdr[8] = c.depth & 0xff;
  ihdr[9] = [0, 2, 3, 4, 6, 1, 7][c.extra % 7]!; // colour type, two of them invalid
  ihdr[12] = c.extra & 1; // interlace
  const rows = Buffer.alloc(Math.min(64 * 1024, 1 + Math.min(c.width, 4096) * 4));
  const idat = deflateSync(Buffer.concat(Array.from({ length: 16 }, () => rows)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr, c.extra > 200 ? c.lengthSkew : 0),
    ...(c.extra % 7 === 2 ? [chunk("PLTE", Buffer.alloc(c.extra * 3))] : []),
    chunk("IDAT", idat, c.lengthSkew, c.extra % 5 === 0),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function bmp(c: ImageCase): Buffer {
  const pixels = Buffer.alloc(256, 0x7f);
  const h = Buffer.alloc(54);
  h.write("BM", 0, "latin1");
  h.writeUInt32LE((54 + pixels.length + c.lengthSkew) >>> 0, 2);
  h.writeUInt32LE(c.extra > 128 ? (c.lengthSkew >>> 0) % 0xffffffff : 54, 10); // pixel data offset
  h.writeUInt32LE(40, 14);
  h.writeUInt32LE(c.width >>> 0, 18); // int32 read signed by some, unsigned by others
  h.writeUInt32LE(c.height >>> 0, 22);
  h.writeUInt16LE(1, 26);
  h.writeUInt16LE(c.depth, 28);
  h.writeUInt32LE(c.extra % 7, 30); // compression: RGB, RLE8, RLE4, BITFIELDS, JPEG, PNG, junk
  h.writeUInt32LE(c.extra % 3 === 0 ? 0xffffffff : 0, 46); // colours used
  return Buffer.concat([h, pixels]);
}

function gif(c: ImageCase): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(c.width & 0xffff, 0);
  screen.writeUInt16LE(c.height & 0xffff, 2);
  screen[4] = 0x80 | (c.depth & 7); // global colour table of 2^(n+1) entries
  const table = Buffer.alloc(3 * 2 ** ((c.depth & 7) + 1));
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE((c.extra * 257) & 0xffff, 1); // left, may sit outside the screen
  descriptor.writeUInt16LE(c.width & 0xffff, 5);
  descriptor.writeUInt16LE(c.height & 0xffff, 7);
  const lzwMin = c.extra % 13; // valid is 2–8
  const data = Buffer.from([lzwMin, 4, 0x84, 0x8f, 0xa9, 0xcb, c.lengthSkew & 0xff || 0]);
  return Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    screen,
    table,
    descriptor,
    data,
    Buffer.from([0x3b]),
  ]);
}

function jpeg(c: ImageCase): Buffer {
  const components = c.extra % 6; // 0, 1, 3, 4 valid-ish; 2 and 5 not
  const sof = Buffer.alloc(8 + components * 3);
  sof.writeUInt16BE((sof.length + c.lengthSkew) & 0xffff, 0);
  sof[2] = c.depth & 0xff; // sample precision
  sof.writeUInt16BE(c.height & 0xffff, 3);
  sof.writeUInt16BE(c.width & 0xffff, 5);
  sof[7] = components;
  for (let i = 0; i < components; i++) sof.set([i + 1, 0x11, 0], 8 + i * 3);
  const dqt = Buffer.concat([Buffer.from([0x00, 0x43, 0x00]), Buffer.alloc(64, 1)]);
  const sos = Buffer.from([0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xdb]),
    dqt,
    Buffer.from([0xff, c.extra & 1 ? 0xc2 : 0xc0]),
    sof,
    Buffer.from([0xff, 0xda]),
    sos,
    Buffer.alloc(64, 0x55),
    Buffer.from([0xff, 0xd9]),
  ]);
}

function tiff(c: ImageCase): Buffer {
  // IFD at 8: [tag, type(3=SHORT,4=LONG), count, value]
  const tags: Array<[number, number, number, number]> = [
    [256, 4, 1, c.width >>> 0],
    [257, 4, 1, c.height >>> 0],
    [258, 3, 1, c.depth],
    [259, 3, 1, [1, 5, 7, 8, 32773, 65535][c.extra % 6]!],
    [262, 3, 1, c.extra % 5],
    [273, 4, 1, 200],
    [277, 3, 1, c.extra % 9],
    [278, 4, 1, c.extra % 4 === 0 ? 0 : 1],
    [279, 4, 1, (64 + c.lengthSkew) >>> 0],
  ];
  const ifd = Buffer.alloc(2 + tags.length * 12 + 4);
  ifd.writeUInt16LE(c.extra % 10 === 0 ? 0xffff : tags.length, 0); // entry count may lie
  tags.forEach(([tag, type, count, value], i) => {
    const at = 2 + i * 12;
    ifd.writeUInt16LE(tag, at);
    ifd.writeUInt16LE(type, at + 2);
    ifd.writeUInt32LE(count, at + 4);
    if (type === 3) ifd.writeUInt16LE(value & 0xffff, at + 8);
    else ifd.writeUInt32LE(value >>> 0, at + 8);
  });
  ifd.writeUInt32LE(c.extra % 3 === 0 ? 8 : 0, ifd.length - 4); // next IFD: itself (a cycle) or none
  const head = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00]);
  const body = Buffer.concat([head, ifd]);
  return Buffer.concat([body, Buffer.alloc(Math.max(0, 200 - body.length)), Buffer.alloc(64, 0x33)]);
}

function webp(c: ImageCase): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x[0] = c.extra & 0x3e; // flags: ICC, alpha, EXIF, XMP, animation
  vp8x.writeUIntLE((c.width - 1) & 0xffffff, 4, 3);
  vp8x.writeUIntLE((c.height - 1) & 0xffffff, 7, 3);
  const frame = Buffer.alloc(30);
  frame.set([0x9d, 0x01, 0x2a], 3); // VP8 key frame start code
  frame.writeUInt16LE(c.width & 0x3fff, 6);
  frame.writeUInt16LE(c.height & 0x3fff, 8);
  const sub = (type: string, data: Buffer, skew = 0) => {
    const h = Buffer.alloc(8);
    h.write(type, 0, "latin1");
    h.writeUInt32LE((data.length + skew) >>> 0, 4);
    return Buffer.concat([h, data, Buffer.alloc(data.length % 2)]);
  };
  const body = Buffer.concat([Buffer.from("WEBP"), sub("VP8X", vp8x), sub("VP8 ", frame, c.lengthSkew)]);
  const riff = Buffer.alloc(8);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE((body.length + (c.extra > 200 ? c.lengthSkew : 0)) >>> 0, 4);
  return Buffer.concat([riff, body]);
}

export const describeImage = (c: ImageCase): string =>
  `${c.format} ${c.width}×${c.height} depth ${c.depth} skew ${c.lengthSkew} extra ${c.extra}`;
