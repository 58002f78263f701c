/**
 * Image thumbnails with sharp (libvips): EXIF orientation first, first frame of animations,
 * Pillow ImageOps strategies, PNG out. Pixel limits are checked from the header before decoding,
 * so a decompression bomb is refused in milliseconds. The service calls this in a child process
 * (thumbnail-pool.ts), where a decoder that hangs or crashes costs one request, and a BMP decode
 * (JavaScript, on the calling thread) can be ended with its process.
 */
import { readFile } from "node:fs/promises";
import colorString from "color-string";
import sharp, { type Metadata, type Sharp } from "sharp";
import { Type } from "typebox";
import { bufferView } from "../../common/bytes.ts";
import { badRequest, HttpError } from "../../common/errors.ts";
import { decodeBmp, readBmpHeader, rleRefusal } from "./bmp.ts";
import { containSize, outputSize, padOffsets, type Size, STRATEGIES, type Strategy } from "./geometry.ts";
import { checkDimensions, type ThumbnailLimits, thumbnailTimeout } from "./limits.ts";
import { THUMBNAIL_INPUT_LIST } from "./thumbnail-inputs.ts";

export type { ThumbnailLimits } from "./limits.ts";

export interface ThumbnailRequest {
  width: number;
  height: number;
  strategy: Strategy;
  /** CSS colour of the padding; transparent when absent. */
  color?: string;
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
  const timeoutMs = limits.timeoutMs ?? 0;
  const started = performance.now();
  // A clock, not an AbortSignal: a synchronous decode (BMP) blocks the timer that would abort it.
  const deadline: Deadline = { passed: () => timeoutMs > 0 && performance.now() - started > timeoutMs };
  const decoded = await openImage(input, limits, deadline);
  const box = { width: req.width, height: req.height };
  checkOutput(req.strategy, decoded.size, box, limits);
  let pipeline = strategyPipeline(decoded, req.strategy, box, background);
  if (timeoutMs > 0) {
    // libvips counts whole seconds: the time left, rounded up, and at least one.
    const left = timeoutMs - (performance.now() - started);
    pipeline = pipeline.timeout({ seconds: Math.max(1, Math.ceil(left / 1000)) });
  }
  try {
    // Level 2, not zlib's 6: the same pixels for a third less encoding CPU and ~6 % more bytes
    // (measured in docs/benchmarks.md, "bench compare").
    return await pipeline.png({ compressionLevel: 2 }).toBuffer();
  } catch (err) {
    throw classifySharpError(err, timeoutMs);
  }
}

function checkOutput(strategy: Strategy, image: Size, box: Size, limits: ThumbnailLimits): void {
  const out = outputSize(strategy, image, box);
  const maxOutput = Math.min(limits.maxOutputPixels ?? Number.POSITIVE_INFINITY, limits.maxImagePixels);
  if (out.width * out.height > maxOutput) {
    // Pillow's ImageOps.cover resizes without cropping (Mandolin answers the whole image): a
    // sliver's cover is huge. Say which strategy gives the box itself.
    const instead =
      strategy === "cover"
        ? " A cover is never cropped (Pillow's ImageOps.cover); fit gives the box, cropped to it."
        : "";
    throw badRequest(
      "output_too_large",
      `A ${strategy} thumbnail of this image into ${box.width}×${box.height} would be ${out.width}×${out.height}, above the limit of ${maxOutput} pixels (FILES_MAX_THUMBNAIL_PIXELS).${instead}`,
    );
  }
}

/** The sharp pipeline of a strategy: Pillow's ImageOps sizes, padding in the colour asked. */
function strategyPipeline(decoded: OpenedImage, strategy: Strategy, box: Size, background: Rgba): Sharp {
  const image = decoded.size;
  const out = outputSize(strategy, image, box);
  const pipeline = sharp(decoded.input, {
    limitInputPixels: decoded.maxPixels,
    failOn: "error",
    sequentialRead: true,
    ...(decoded.raw ? { raw: decoded.raw } : {}),
  }).autoOrient();
  // An alpha channel only where transparency can show: a quarter less to resize and encode for
  // an opaque colour image (an RGB PNG, as Pillow gives). Grey images keep their known shapes.
  if (decoded.grey || (strategy === "pad" && background.alpha < 1)) pipeline.ensureAlpha();
  switch (strategy) {
    case "contain":
    case "cover":
      return pipeline.resize(out.width, out.height, { fit: "fill" });
    case "fit":
      return pipeline.resize(out.width, out.height, { fit: "cover", position: "centre" });
    case "pad": {
      const inner = containSize(image, box);
      const { left, top } = padOffsets(inner, box);
      pipeline.resize(inner.width, inner.height, { fit: "fill" }).extend({
        left,
        top,
        right: box.width - inner.width - left,
        bottom: box.height - inner.height - top,
        background,
      });
      // libvips paints the padding in the image's own colour space: a grey image would get a
      // grey derived from the colour. Work in RGB when the colour is not a grey.
      if (decoded.grey && !isGrey(background)) {
        pipeline.pipelineColourspace(decoded.grey === "grey16" ? "rgb16" : "srgb");
      }
      return pipeline;
    }
  }
}

interface OpenedImage {
  /** What sharp reads: the original path or bytes, or decoded pixels for formats libvips lacks. */
  input: string | Buffer;
  raw?: { width: number; height: number; channels: 4 };
  /** Displayed size, after EXIF orientation. */
  size: Size;
  /** The grey colour space of a greyscale image (8 or 16 bit), absent for colour images. */
  grey?: "b-w" | "grey16";
  /** The pixel limit libvips enforces again while decoding. */
  maxPixels: number;
}

/** Whether THUMBNAIL_TIMEOUT_MS has run out, read from the clock. */
interface Deadline {
  passed(): boolean;
}

const isGrey = (c: Rgba) => c.r === c.g && c.g === c.b;

/** Reads the image header, checks the pixel limit, and prepares the input sharp will decode. */
async function openImage(
  input: string | Buffer,
  limits: ThumbnailLimits,
  deadline: Deadline,
): Promise<OpenedImage> {
  let meta: Metadata;
  try {
    meta = await readHeader(input);
  } catch (err) {
    if (err instanceof HttpError && err.code === "unsupported_image") {
      return openBmp(input, limits, err, deadline);
    }
    throw err;
  }
  const size = orientedSize(meta);
  checkDimensions(size, limits, meta.format ?? "image");
  // From bytes, librsvg has no base folder, so an SVG cannot pull in neighbouring files.
  const source = meta.format === "svg" && typeof input === "string" ? await readFile(input) : input;
  const grey = meta.space === "b-w" || meta.space === "grey16" ? meta.space : undefined;
  return { input: source, size, maxPixels: limits.maxImagePixels, ...(grey ? { grey } : {}) };
}

/**
 * libvips has no BMP loader: BMPs are decoded to raw pixels here, on the calling thread, which is
 * a thumbnail process's own (the pool kills one still busy past the deadline); anything else
 * stays unsupported.
 */
async function openBmp(
  input: string | Buffer,
  limits: ThumbnailLimits,
  unsupported: HttpError,
  deadline: Deadline,
): Promise<OpenedImage> {
  const header = await readBmpHeader(input);
  if (!header) throw unsupported;
  if (header.kind === "undecodable") throw badRequest("unsupported_image", `${header.reason}.`);
  checkDimensions(header.size, limits, "BMP");
  const bytes = typeof input === "string" ? await readFile(input) : input;
  const refusal = rleRefusal(bytes, header.size);
  if (refusal) throw badRequest("image_too_large", refusal);
  const pixels = decodeBmpPixels(bytes, header.size);
  if (deadline.passed()) throw thumbnailTimeout(limits.timeoutMs ?? 0);
  const raw = { ...header.size, channels: 4 } as const;
  return { input: pixels, raw, size: header.size, maxPixels: limits.maxImagePixels };
}

/** RGBA pixels of a BMP whose header gave `size`; 400 when malformed. */
function decodeBmpPixels(bytes: Buffer, size: Size): Buffer {
  let data: Uint8Array;
  try {
    data = decodeBmp(bytes).data;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw badRequest("corrupt_image", `The BMP decoder failed on this image: ${message}`);
  }
  if (data.byteLength !== size.width * size.height * 4) {
    throw badRequest("corrupt_image", "The BMP decoder returned pixels of another size than its header's.");
  }
  return bufferView(data);
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

function classifySharpError(err: unknown, timeoutMs = 0): HttpError {
  if (err instanceof HttpError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/timeout: \d+% complete/.test(message)) return thumbnailTimeout(timeoutMs);
  // An empty upload reads as "unsupported" from a file and as "empty" from bytes: the same answer.
  if (/unsupported image format|bad seek|heif: Unsupported|Input Buffer is empty/i.test(message)) {
    return badRequest(
      "unsupported_image",
      `The file is not an image in a supported format (${THUMBNAIL_INPUT_LIST}).`,
    );
  }
  if (/exceeds pixel limit/i.test(message)) {
    return badRequest("image_too_large", "The image has more pixels than FILES_MAX_IMAGE_PIXELS allows.");
  }
  return badRequest("corrupt_image", `The image could not be decoded: ${message.split("\n")[0]}`);
}

export function sharpVersions(): Record<string, string> {
  return sharp.versions as unknown as Record<string, string>;
}
