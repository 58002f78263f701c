/**
 * The thumbnail converter's limits, checked before any pixel is allocated: declared dimensions
 * (as the decoder that will run reads them), input pixels, output pixels and time.
 */
import { badRequest, type HttpError } from "../../common/errors.ts";
import type { Size } from "./geometry.ts";

export interface ThumbnailLimits {
  /** Largest decoded image, in pixels. */
  maxImagePixels: number;
  /** Largest thumbnail, in pixels (never above maxImagePixels). */
  maxOutputPixels?: number;
  /** Time limit of one thumbnail, in ms (none when absent). */
  timeoutMs?: number;
}

/** Refuses zero, negative, fractional or absurd dimensions, then images above the pixel limit. */
export function checkDimensions(image: Size, limits: ThumbnailLimits, format: string): void {
  const valid = (n: number) => Number.isSafeInteger(n) && n > 0;
  if (!valid(image.width) || !valid(image.height)) {
    throw badRequest(
      "invalid_dimensions",
      `The ${format} header declares a size of ${image.width}×${image.height}: width and height must be positive.`,
    );
  }
  const pixels = image.width * image.height;
  if (pixels > limits.maxImagePixels) {
    throw badRequest(
      "image_too_large",
      `The image is ${image.width}×${image.height} (${pixels} pixels), above the limit of ${limits.maxImagePixels}.`,
    );
  }
}

export function thumbnailTimeout(timeoutMs: number): HttpError {
  return badRequest(
    "timeout",
    `The thumbnail took longer than ${timeoutMs} ms and was stopped (FILES_THUMBNAIL_TIMEOUT_MS).`,
  );
}
