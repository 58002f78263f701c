/**
 * The image formats the thumbnail converter reads, one row each, with what decodes it: libvips as
 * shipped with sharp, or Loupe's own decoder where libvips lacks one. The refusal message is made
 * from this list; the README, the tests' samples and the hostile seeds are checked against it.
 */
export const THUMBNAIL_INPUTS = [
  { name: "JPEG", decoder: "libvips" },
  { name: "PNG", decoder: "libvips" },
  { name: "GIF", decoder: "libvips" },
  { name: "WebP", decoder: "libvips" },
  { name: "TIFF", decoder: "libvips" },
  { name: "AVIF/HEIF", decoder: "libvips" },
  { name: "SVG", decoder: "libvips" },
  { name: "BMP", decoder: "converters/bmp.ts" },
] as const;

export type ThumbnailInput = (typeof THUMBNAIL_INPUTS)[number]["name"];

/** The formats as a person reads them: "JPEG, PNG, …, BMP". */
export const THUMBNAIL_INPUT_LIST = THUMBNAIL_INPUTS.map((f) => f.name).join(", ");
