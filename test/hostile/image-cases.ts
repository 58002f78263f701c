/**
 * Hostile images for the thumbnail converter, built in code (no blobs in the repository): headers
 * that lie about their dimensions in every format, decompression bombs, frame floods, SVG entity
 * bombs and huge output requests. Each case names the answers a safe service may give.
 */
import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";
import { bmp24, pngBombHeader, pngChunk } from "../helpers/images.ts";

export interface ImageCase {
  name: string;
  bytes: Buffer;
  filename: string;
  query?: string;
  /** Error codes a 400 may carry; `thumbnail` means a 200 PNG is also a right answer. */
  codes: string[];
}

/** Refused for its size, or (when the decoder itself refuses the header) as a corrupt image. */
const DIMENSIONS = ["image_too_large", "invalid_dimensions", "corrupt_image", "unsupported_image"];
const TOO_LARGE = ["image_too_large"];

/** Makes the cases of one format: `codes` defaults to a refusal for the declared size. */
function caseMaker(format: string, filename: string) {
  return (name: string, bytes: Buffer, codes = DIMENSIONS): ImageCase => ({
    name: `${format} ${name}`,
    bytes,
    filename,
    codes,
  });
}

/** Every image case, grouped by format; SVG cases point their external references at `svgSpyUrl`. */
export async function imageCaseGroups(svgSpyUrl: string): Promise<Array<[string, ImageCase[]]>> {
  return [
    ["BMP", bmpCases()],
    ["PNG", pngCases()],
    ["GIF", gifCases()],
    ["JPEG", await jpegCases()],
    ["TIFF", tiffCases()],
    ["WebP", await webpCases()],
    ["HEIF", await heifCases()],
    ["SVG", svgCases(svgSpyUrl)],
    ["output", await outputCases()],
    ["unread formats", unreadCases()],
  ];
}

/** A BMP whose header says width×height (stored as int32) over tiny pixel data. */
function bmpClaiming(width: number, height: number, pixelBytes = 4096): Buffer {
  const bytes = Buffer.concat([bmp24(1, 1, [1, 2, 3]), Buffer.alloc(pixelBytes)]);
  bytes.writeUInt32LE(width >>> 0, 18);
  bytes.writeUInt32LE(height >>> 0, 22);
  return bytes;
}

export function bmpCases(): ImageCase[] {
  const bmp = caseMaker("BMP", "x.bmp");
  const c = (name: string, w: number, h: number, codes: string[]) => bmp(name, bmpClaiming(w, h), codes);
  return [
    // bmp-ts reads the width unsigned: 0xFFFFFFFF is 4 gigapixels wide, not 1 (|-1|).
    c("width 0xFFFFFFFF", -1, 1, TOO_LARGE),
    c("width and height 0xFFFFFFFF", -1, -1, TOO_LARGE),
    c("width 0", 0, 10, ["invalid_dimensions"]),
    c("height 0", 10, 0, ["invalid_dimensions"]),
    c("width −2³¹", -(2 ** 31), 1, TOO_LARGE),
    c("height −2³¹ (top-down)", 1, -(2 ** 31), TOO_LARGE),
    c("65536×65536", 65_536, 65_536, TOO_LARGE),
    // bmp-ts fills and walks all 100 megapixels (6–15 s) that two bytes of RLE8 "encode".
    bmp("RLE8 1×100,000,000 ending at once", rle8Bmp(1, 100_000_000, Buffer.from([0, 1])), TOO_LARGE),
    bmp("RLE8 10000×10000 of one line", rle8Bmp(10_000, 10_000, Buffer.from([255, 7, 0, 0])), TOO_LARGE),
    // 40 skips of 255 rows reach the last row of 10000×10000 without drawing a pixel.
    bmp("RLE8 10000×10000 crossed by skips", rle8Bmp(10_000, 10_000, skipsDown(40)), TOO_LARGE),
    // Run-length data that reaches every pixel is decoded.
    bmp("RLE8 64×64 drawn line by line", rle8Bmp(64, 64, rleRows(64, 64)), ["thumbnail"]),
  ];
}

/** A PNG whose IHDR claims width×height over one small IDAT (see pngBombHeader). */
export function pngCases(): ImageCase[] {
  const c = caseMaker("PNG", "x.png");
  return [
    c("width 0", pngBombHeader(0, 10)),
    c("height 0", pngBombHeader(10, 0)),
    c("width 0xFFFFFFFF", pngBombHeader(0xffffffff, 1)),
    c("width 2³¹ (negative as int32)", pngBombHeader(2 ** 31, 1)),
    c("2³¹−1 × 2³¹−1", pngBombHeader(2 ** 31 - 1, 2 ** 31 - 1)),
    c("60000×60000 bomb header", pngBombHeader(60_000, 60_000), TOO_LARGE),
    c("7000×7000 of zeros in 50 KB (decodes within the limit)", zeroPng(7000, 7000), ["thumbnail"]),
    c("100×100 followed by 200 MB of inflated zeros", overlongPng(), [...DIMENSIONS, "thumbnail"]),
  ];
}

/** A real greyscale PNG of zeros: megapixels in a few kilobytes. */
function zeroPng(width: number, height: number): Buffer {
  const raw = Buffer.alloc((width + 1) * height); // each row: filter byte 0, then zeros
  const png = pngBombHeader(width, height);
  png[24] = 8;
  png[25] = 0; // greyscale
  return replaceIdat(fixIhdrCrc(png), deflateSync(raw, { level: 9 }));
}

/** A 100×100 PNG whose IDAT inflates to 200 MB: the decoder must stop at the declared size. */
function overlongPng(): Buffer {
  return replaceIdat(pngBombHeader(100, 100), deflateSync(Buffer.alloc(200_000_000), { level: 9 }));
}

function fixIhdrCrc(png: Buffer): Buffer {
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(png.subarray(12, 29)));
  crc.copy(png, 29);
  return png;
}

function replaceIdat(png: Buffer, data: Buffer): Buffer {
  const head = png.subarray(0, 33); // signature + IHDR chunk
  return Buffer.concat([head, pngChunk("IDAT", data), pngChunk("IEND", Buffer.alloc(0))]);
}

/** A GIF (no colour table needed by its one-pixel frames) of `frames` frames in a width×height screen. */
function gif(width: number, height: number, frames = 1, frameSide = 1): Buffer {
  const screen = Buffer.alloc(13);
  screen.write("GIF89a", 0, "latin1");
  screen.writeUInt16LE(width, 6);
  screen.writeUInt16LE(height, 8);
  screen[10] = 0x80; // global colour table of 2 entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const frame = Buffer.alloc(10);
  frame[0] = 0x2c;
  frame.writeUInt16LE(frameSide, 5);
  frame.writeUInt16LE(frameSide, 7);
  // LZW, minimum code size 2: clear, pixel 0, end of information (3 bits each).
  const pixels = Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00]);
  const one = Buffer.concat([frame, pixels]);
  return Buffer.concat([screen, palette, ...Array.from({ length: frames }, () => one), Buffer.from([0x3b])]);
}

export function gifCases(): ImageCase[] {
  const c = caseMaker("GIF", "x.gif");
  return [
    c("screen 65535×65535", gif(65_535, 65_535), [...DIMENSIONS, "thumbnail"]),
    c("screen 0×0", gif(0, 0), [...DIMENSIONS, "thumbnail"]),
    c("frame 65535×65535 in a 1×1 screen", gif(1, 1, 1, 65_535), [...DIMENSIONS, "thumbnail"]),
    c("5,000 frames", gif(10, 10, 5000), ["thumbnail", "corrupt_image"]),
    c("50,000 frames of 1000×1000 declared", gif(1000, 1000, 50_000, 1000), [...DIMENSIONS, "thumbnail"]),
  ];
}

/** A real JPEG with its SOF0 size rewritten. */
async function jpegClaiming(width: number, height: number): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#123" } })
    .jpeg()
    .toBuffer();
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  jpeg.writeUInt16BE(height, sof + 5);
  jpeg.writeUInt16BE(width, sof + 7);
  return jpeg;
}

export async function jpegCases(): Promise<ImageCase[]> {
  const jpeg = caseMaker("JPEG", "x.jpg");
  const c = async (name: string, w: number, h: number, codes = DIMENSIONS) =>
    jpeg(name, await jpegClaiming(w, h), codes);
  return [
    await c("width 0", 0, 8),
    await c("height 0 (DNL)", 8, 0),
    await c("65535×65535", 65_535, 65_535),
    await c("65535×1 over 8×8 of data", 65_535, 1, [...DIMENSIONS, "thumbnail"]),
  ];
}

/** A minimal little-endian greyscale TIFF whose IFD says width×height over 16 bytes of strip. */
function tiff(width: number, height: number): Buffer {
  const tags: Array<[number, number, number]> = [
    [256, 4, width], // ImageWidth, LONG
    [257, 4, height], // ImageLength
    [258, 3, 8], // BitsPerSample
    [259, 3, 1], // no compression
    [262, 3, 1], // BlackIsZero
    [273, 4, 0], // StripOffsets, filled below
    [277, 3, 1], // SamplesPerPixel
    [278, 4, height], // RowsPerStrip
    [279, 4, 16], // StripByteCounts
  ];
  const ifd = Buffer.alloc(2 + tags.length * 12 + 4);
  ifd.writeUInt16LE(tags.length, 0);
  const dataOffset = 8 + ifd.length;
  tags.forEach(([tag, type, value], i) => {
    const at = 2 + i * 12;
    ifd.writeUInt16LE(tag, at);
    ifd.writeUInt16LE(type, at + 2);
    ifd.writeUInt32LE(1, at + 4);
    if (type === 3) ifd.writeUInt16LE(value, at + 8);
    else ifd.writeUInt32LE(tag === 273 ? dataOffset : value >>> 0, at + 8);
  });
  const head = Buffer.from([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]);
  return Buffer.concat([head, ifd, Buffer.alloc(16, 0x80)]);
}

export function tiffCases(): ImageCase[] {
  const c = caseMaker("TIFF", "x.tif");
  return [
    c("4×4 (the builder makes a real TIFF)", tiff(4, 4), ["thumbnail"]),
    c("width 0", tiff(0, 4)),
    c("width 0xFFFFFFFF", tiff(0xffffffff, 1)),
    c("width 2³¹ (negative as int32)", tiff(2 ** 31, 1)),
    c("height 0xFFFFFFFF", tiff(1, 0xffffffff)),
    c("100000×100000", tiff(100_000, 100_000)),
  ];
}

async function losslessWebp(): Promise<Buffer> {
  return sharp({ create: { width: 1, height: 1, channels: 3, background: "#123" } })
    .webp({ lossless: true })
    .toBuffer();
}

/** A lossless WebP whose VP8L header (14 bits per side, stored minus one) says width×height. */
async function vp8lClaiming(width: number, height: number): Promise<Buffer> {
  const webp = await losslessWebp();
  const bits = webp.readUInt32LE(21);
  webp.writeUInt32LE(
    ((bits & ~0x0fffffff) | ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14)) >>> 0,
    21,
  );
  return webp;
}

/** An extended WebP (VP8X) whose canvas (24 bits per side, minus one) says width×height. */
async function vp8xClaiming(width: number, height: number): Promise<Buffer> {
  const inner = (await losslessWebp()).subarray(12);
  const vp8x = Buffer.alloc(18);
  vp8x.write("VP8X", 0, "latin1");
  vp8x.writeUInt32LE(10, 4);
  vp8x.writeUIntLE(width - 1, 12, 3);
  vp8x.writeUIntLE(height - 1, 15, 3);
  const body = Buffer.concat([Buffer.from("WEBP", "latin1"), vp8x, inner]);
  const riff = Buffer.alloc(8);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

export async function webpCases(): Promise<ImageCase[]> {
  const c = caseMaker("WebP", "x.webp");
  return [
    c("VP8L 16384×16384", await vp8lClaiming(16_384, 16_384)),
    c("VP8X canvas 16777216×16777216", await vp8xClaiming(16_777_216, 16_777_216)),
    c("VP8X canvas 16777216×1 over a 1×1 image", await vp8xClaiming(16_777_216, 1)),
  ];
}

/** A real AVIF with its `ispe` (image spatial extents) box rewritten; `brand` swaps the ftyp brand. */
async function heifClaiming(width: number, height: number, brand?: string): Promise<Buffer> {
  const avif = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#123" } })
    .avif()
    .toBuffer();
  const ispe = avif.indexOf("ispe", 0, "latin1");
  avif.writeUInt32BE(width >>> 0, ispe + 8);
  avif.writeUInt32BE(height >>> 0, ispe + 12);
  if (brand) avif.write(brand, 8, "latin1");
  return avif;
}

export async function heifCases(): Promise<ImageCase[]> {
  const c = async (name: string, w: number, h: number, brand?: string) =>
    caseMaker(brand ? "HEIC" : "AVIF", brand ? "x.heic" : "x.avif")(name, await heifClaiming(w, h, brand));
  return [
    await c("0×0", 0, 0),
    await c("0xFFFFFFFF×0xFFFFFFFF", 0xffffffff, 0xffffffff),
    await c("2³¹×1 (negative as int32)", 2 ** 31, 1),
    await c("65536×65536", 65_536, 65_536),
    await c("65536×65536", 65_536, 65_536, "heic"),
    await c("0×0", 0, 0, "heic"),
  ];
}

const SVG_NS = 'xmlns="http://www.w3.org/2000/svg"';

/** Nine levels of ten references each: a billion `lol`s if a parser expanded them. */
function billionLaughs(): string {
  const entities = ['<!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  return `<?xml version="1.0"?><!DOCTYPE svg [${entities.join("")}]><svg ${SVG_NS} width="10" height="10"><text>&lol9;</text></svg>`;
}

/** `spyUrl` must see no request: SVGs are rendered without fetching anything. */
export function svgCases(spyUrl: string): ImageCase[] {
  const svg = caseMaker("SVG", "x.svg");
  const c = (name: string, text: string, codes = [...DIMENSIONS, "thumbnail"]) =>
    svg(name, Buffer.from(text), codes);
  return [
    c("1e9×1e9", `<svg ${SVG_NS} width="1000000000" height="1000000000"/>`, DIMENSIONS),
    c("100000×100000", `<svg ${SVG_NS} width="100000" height="100000"/>`, TOO_LARGE),
    c("width 0", `<svg ${SVG_NS} width="0" height="10"/>`),
    c("negative width", `<svg ${SVG_NS} width="-10" height="10"/>`),
    c("billion laughs", billionLaughs()),
    c(
      "external entity over HTTP",
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "${spyUrl}/entity">]><svg ${SVG_NS} width="10" height="10"><text>&x;</text></svg>`,
    ),
    c(
      "external image, stylesheet and XInclude",
      `<?xml-stylesheet href="${spyUrl}/style.css"?><svg ${SVG_NS} xmlns:xi="http://www.w3.org/2001/XInclude" width="10" height="10"><image href="${spyUrl}/a.png" width="10" height="10"/><xi:include href="${spyUrl}/inc.xml"/><style>@import url(${spyUrl}/b.css);</style></svg>`,
    ),
    c(
      "local file reference",
      `<svg ${SVG_NS} width="10" height="10"><image href="file:///etc/passwd" width="10" height="10"/></svg>`,
    ),
  ];
}

/** Tiny inputs asking for enormous outputs: refused by MAX_THUMBNAIL_PIXELS before any work. */
export async function outputCases(): Promise<ImageCase[]> {
  const dot = await sharp({ create: { width: 1, height: 1, channels: 3, background: "#123" } })
    .png()
    .toBuffer();
  const sliver = await sharp({ create: { width: 1, height: 2000, channels: 3, background: "#123" } })
    .png()
    .toBuffer();
  const c = (name: string, bytes: Buffer, query: string): ImageCase => ({
    name: `output ${name}`,
    bytes,
    filename: "x.png",
    query,
    codes: ["output_too_large"],
  });
  return [
    c("1×1 PNG padded to 10000×10000", dot, "width=10000&height=10000&strategy=pad"),
    c("1×1 PNG fitted to 10000×10000", dot, "width=10000&height=10000&strategy=fit"),
    c("1×2000 covering 1000×1000 (2 gigapixels)", sliver, "width=1000&height=1000&strategy=cover"),
  ];
}

/** A 1-bit BMP of width×height: 8 pixels a byte, so tens of megapixels for bmp-ts to decode from a few MB. */
export function bmp1bit(width: number, height: number): Buffer {
  const rowSize = Math.ceil(width / 32) * 4;
  const offset = 14 + 40 + 8;
  const out = Buffer.alloc(offset + rowSize * height, 0x5a);
  out.write("BM", 0, "latin1");
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(0, 6);
  out.writeUInt32LE(offset, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26); // planes
  out.writeUInt16LE(1, 28); // bits per pixel
  out.fill(0, 30, 54); // no compression, default sizes, 2 colours
  out.writeUInt32LE(0x000000, 54); // palette: black, white
  out.writeUInt32LE(0xffffff, 58);
  return out;
}

/** An SVG whose turbulence filter keeps librsvg busy for many seconds in one uninterruptible call. */
export function slowSvg(side: number): Buffer {
  return Buffer.from(
    `<svg ${SVG_NS} width="${side}" height="${side}"><filter id="t"><feTurbulence baseFrequency="0.05" numOctaves="10"/></filter><rect width="${side}" height="${side}" filter="url(#t)"/></svg>`,
  );
}

/** Formats the converter does not read, carrying bombs anyway: refused as unsupported, never decoded. */
export function unreadCases(): ImageCase[] {
  const bomb = pngBombHeader(60_000, 60_000);
  const icondir = Buffer.alloc(22);
  icondir.writeUInt16LE(1, 2); // type: icon
  icondir.writeUInt16LE(1, 4); // one image, 0×0 (meaning 256) declared, a PNG bomb inside
  icondir.writeUInt32LE(bomb.length, 14);
  icondir.writeUInt32LE(22, 18);
  const ico = caseMaker("ICO", "x.ico");
  return [
    ico("holding a 60000×60000 PNG", Buffer.concat([icondir, bomb]), [
      "unsupported_image",
      "image_too_large",
    ]),
  ];
}

/**
 * An RLE8 BMP of width×height whose data is `stream` (run-length commands) after a 256-colour
 * palette: `00 01` alone ends the bitmap at once, so megapixels come from two bytes.
 */
export function rle8Bmp(width: number, height: number, stream: Buffer): Buffer {
  const offset = 14 + 40 + 256 * 4;
  const out = Buffer.alloc(offset + stream.length);
  out.write("BM", 0, "latin1");
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(offset, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26); // planes
  out.writeUInt16LE(8, 28); // bits per pixel
  out.writeUInt32LE(1, 30); // BI_RLE8
  out.writeUInt32LE(stream.length, 34);
  for (let i = 0; i < 256; i++) out.writeUInt32LE(i * 0x010101, 54 + 4 * i);
  stream.copy(out, offset);
  return out;
}

/** RLE8 commands drawing height rows of width pixels (a run each, then end of line), then the end. */
function rleRows(width: number, height: number): Buffer {
  const rows = Array.from({ length: height }, (_, y) => Buffer.from([width, y % 256, 0, 0]));
  return Buffer.concat([...rows, Buffer.from([0, 1])]);
}

/** RLE8 commands skipping 255 rows down, `times` times, then the end of the bitmap. */
function skipsDown(times: number): Buffer {
  return Buffer.concat([
    ...Array.from({ length: times }, () => Buffer.from([0, 2, 0, 255])),
    Buffer.from([0, 1]),
  ]);
}
