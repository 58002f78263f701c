/**
 * Image thumbnails with sharp (libvips): EXIF orientation first, first frame of animations,
 * Pillow ImageOps strategies, PNG out. Pixel limits are checked from the header before decoding,
 * so a decompression bomb is refused in milliseconds.
 */
import { readFile } from "node:fs/promises";
import colorString from "color-string";
import sharp, { type Metadata } from "sharp";
import { Type } from "typebox";
import { badRequest, errorMessage, HttpError } from "../../common/errors.ts";
import { decodeBmp, type RawImage, readBmpHeader } from "./bmp.ts";
import { containSize, outputSize, padOffsets, type Size, STRATEGIES, type Strategy } from "./geometry.ts";

export interface ThumbnailRequest {
  width: number;
  height: number;
  strategy: Strategy;
  /** CSS colour of the padding; transparent when absent. */
  color?: string;
}

export interface ThumbnailLimits {
  maxImagePixels: number;
}

interface Rgba {
  r: number;
  g: number;
  b: number;
  alpha: number;
}

const TRANSPARENT: Rgba = { r: 0, g: 0, b: 0, alpha: 0 };

export const thumbnailStrategySchema = Type.Enum([...STRATEGIES], { $id: "ThumbnailStrategy" });

export function thumbnailQuerySchema(maxSide: number) {
  return Type.Object({
    width: Type.Integer({ minimum: 1, maximum: maxSide, default: 300, description: "Box width in pixels." }),
    height: Type.Integer({
      minimum: 1,
      maximum: maxSide,
      default: 200,
      description: "Box height in pixels.",
    }),
    // By name, as Mandolin's `ThumbnailStrategy` model (registered with the other shared schemas).
    strategy: Type.Unsafe<Strategy>({
      $ref: "ThumbnailStrategy",
      default: "pad",
      description: "Pillow ImageOps semantics: pad, fit, cover or contain.",
    }),
    color: Type.Optional(
      Type.String({
        maxLength: 64,
        description: "Padding colour (CSS: name, #rgb, #rrggbbaa, rgb(), rgba()).",
      }),
    ),
  });
}

export function parseColor(css: string | undefined): Rgba {
  if (css === undefined || css.trim() === "") return TRANSPARENT;
  const rgba = colorString.get.rgb(css.trim());
  if (!rgba) {
    throw badRequest(
      "invalid_color",
      `"${css}" is not a CSS colour: use a name (red), #rgb, #rrggbb, #rrggbbaa, rgb(r, g, b) or rgba(r, g, b, a).`,
    );
  }
  const [r = 0, g = 0, b = 0, alpha = 1] = rgba;
  return { r, g, b, alpha };
}

/** Makes the PNG thumbnail of the image at `input` (a path or bytes). Throws HttpError 400 for bad images. */
export async function makeThumbnail(
  input: string | Buffer,
  req: ThumbnailRequest,
  limits: ThumbnailLimits,
): Promise<Buffer> {
  const background = parseColor(req.color);
  const decoded = await openImage(input, limits);
  const image = decoded.size;
  const box = { width: req.width, height: req.height };
  const out = outputSize(req.strategy, image, box);
  if (out.width * out.height > limits.maxImagePixels) {
    throw badRequest(
      "output_too_large",
      `A ${req.strategy} thumbnail of this image into ${box.width}×${box.height} would be ${out.width}×${out.height}, above the limit of ${limits.maxImagePixels} pixels.`,
    );
  }
  let pipeline = sharp(decoded.input, {
    limitInputPixels: limits.maxImagePixels,
    failOn: "error",
    sequentialRead: true,
    ...(decoded.raw ? { raw: decoded.raw } : {}),
  })
    .autoOrient()
    .ensureAlpha();
  switch (req.strategy) {
    case "contain":
    case "cover":
      pipeline = pipeline.resize(out.width, out.height, { fit: "fill" });
      break;
    case "fit":
      pipeline = pipeline.resize(out.width, out.height, { fit: "cover", position: "centre" });
      break;
    case "pad": {
      const inner = containSize(image, box);
      const { left, top } = padOffsets(inner, box);
      pipeline = pipeline.resize(inner.width, inner.height, { fit: "fill" }).extend({
        left,
        top,
        right: box.width - inner.width - left,
        bottom: box.height - inner.height - top,
        background,
      });
      break;
    }
  }
  try {
    return await pipeline.png({ compressionLevel: 6 }).toBuffer();
  } catch (err) {
    throw classifySharpError(err);
  }
}

interface OpenedImage {
  /** What sharp reads: the original path or bytes, or decoded pixels for formats libvips lacks. */
  input: string | Buffer;
  raw?: { width: number; height: number; channels: 4 };
  /** Displayed size, after EXIF orientation. */
  size: Size;
}

/** Reads the image header, checks the pixel limit, and prepares the input sharp will decode. */
async function openImage(input: string | Buffer, limits: ThumbnailLimits): Promise<OpenedImage> {
  let meta: Metadata;
  try {
    meta = await readHeader(input);
  } catch (err) {
    if (err instanceof HttpError && err.code === "unsupported_image") return openBmp(input, limits, err);
    throw err;
  }
  const size = orientedSize(meta);
  checkPixels(size, limits);
  // From bytes, librsvg has no base folder, so an SVG cannot pull in neighbouring files.
  const source = meta.format === "svg" && typeof input === "string" ? await readFile(input) : input;
  return { input: source, size };
}

/** libvips has no BMP loader: BMPs are decoded to raw pixels here; anything else stays unsupported. */
async function openBmp(
  input: string | Buffer,
  limits: ThumbnailLimits,
  unsupported: HttpError,
): Promise<OpenedImage> {
  const size = await readBmpHeader(input);
  if (!size) throw unsupported;
  checkPixels(size, limits);
  const bytes = typeof input === "string" ? await readFile(input) : input;
  let pixels: RawImage;
  try {
    pixels = decodeBmp(bytes);
  } catch (err) {
    throw badRequest("corrupt_image", `The BMP image could not be decoded: ${errorMessage(err)}`);
  }
  return { input: pixels.data, raw: { width: pixels.width, height: pixels.height, channels: 4 }, size };
}

function checkPixels(image: Size, limits: ThumbnailLimits): void {
  const pixels = image.width * image.height;
  if (pixels > limits.maxImagePixels) {
    throw badRequest(
      "image_too_large",
      `The image is ${image.width}×${image.height} (${pixels} pixels), above the limit of ${limits.maxImagePixels}.`,
    );
  }
}

async function readHeader(input: string | Buffer): Promise<Metadata> {
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw classifySharpError(err);
  }
  if (!meta.format || !meta.width || !meta.height) {
    throw badRequest("unsupported_image", "The file is not an image in a supported format.");
  }
  return meta;
}

function orientedSize(meta: Metadata): Size {
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  const swapped = (meta.orientation ?? 1) >= 5;
  return swapped ? { width: height, height: width } : { width, height };
}

function classifySharpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/unsupported image format|bad seek|heif: Unsupported/i.test(message)) {
    return badRequest(
      "unsupported_image",
      "The file is not an image in a supported format (JPEG, PNG, GIF, WebP, TIFF, AVIF/HEIF, SVG, BMP).",
    );
  }
  if (/exceeds pixel limit/i.test(message)) {
    return badRequest("image_too_large", "The image has more pixels than MAX_IMAGE_PIXELS allows.");
  }
  return badRequest("corrupt_image", `The image could not be decoded: ${message.split("\n")[0]}`);
}

export function sharpVersions(): Record<string, string> {
  return sharp.versions as unknown as Record<string, string>;
}
