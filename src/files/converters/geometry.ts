/**
 * Output sizes of the thumbnail strategies, computed exactly as Pillow's ImageOps does (what
 * Mandolin users get today), including Python's round-half-to-even.
 */

export const STRATEGIES = ["pad", "fit", "cover", "contain"] as const;
export type Strategy = (typeof STRATEGIES)[number];

export interface Size {
  width: number;
  height: number;
}

/** Python 3's round(): halves go to the even neighbour. */
export function pyRound(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** ImageOps.contain: the largest size with the image's aspect that fits inside the box. */
export function containSize(image: Size, box: Size): Size {
  const imRatio = image.width / image.height;
  const boxRatio = box.width / box.height;
  if (imRatio === boxRatio) return { ...box };
  if (imRatio > boxRatio) {
    return { width: box.width, height: Math.max(1, pyRound((image.height / image.width) * box.width)) };
  }
  return { width: Math.max(1, pyRound((image.width / image.height) * box.height)), height: box.height };
}

/** ImageOps.cover: the smallest size with the image's aspect that covers the box. */
export function coverSize(image: Size, box: Size): Size {
  const imRatio = image.width / image.height;
  const boxRatio = box.width / box.height;
  if (imRatio === boxRatio) return { ...box };
  if (imRatio < boxRatio) {
    return { width: box.width, height: Math.max(1, pyRound((image.height / image.width) * box.width)) };
  }
  return { width: Math.max(1, pyRound((image.width / image.height) * box.height)), height: box.height };
}

/** ImageOps.pad: where the contained image sits inside the box (centred, Pillow's rounding). */
export function padOffsets(inner: Size, box: Size): { left: number; top: number } {
  if (inner.width !== box.width) return { left: pyRound((box.width - inner.width) * 0.5), top: 0 };
  return { left: 0, top: pyRound((box.height - inner.height) * 0.5) };
}

/** The size of the PNG a strategy produces for an image (after EXIF orientation) and a box. */
export function outputSize(strategy: Strategy, image: Size, box: Size): Size {
  switch (strategy) {
    case "contain":
      return containSize(image, box);
    case "cover":
      return coverSize(image, box);
    case "pad":
    case "fit":
      return { ...box };
  }
}
