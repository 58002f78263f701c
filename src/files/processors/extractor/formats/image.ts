/** Images: dimensions and format (sharp), EXIF/GPS/XMP/IPTC/ICC (exifr). No text unless OCR is added. */
import exifr from "exifr";
import sharp from "sharp";
import { type Extracted, isoDate } from "../result.ts";

const plain = (v: unknown): unknown =>
  v instanceof Date
    ? v.toISOString()
    : v instanceof Uint8Array
      ? `${v.length} bytes`
      : Array.isArray(v)
        ? v.map(plain)
        : v;

const snake = (k: string) =>
  k
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toLowerCase();

export async function extractImage(bytes: Buffer): Promise<Extracted> {
  const meta = await sharp(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  const image: Record<string, unknown> = {};
  if (meta)
    Object.assign(image, {
      width: meta.width,
      height: meta.pageHeight ?? meta.height,
      format: meta.format,
      channels: meta.channels,
      has_alpha: meta.hasAlpha,
      pages: meta.pages ?? 1,
      ...(meta.density ? { density: meta.density } : {}),
    });
  const extra: Record<string, Record<string, unknown>> = { image };
  let created: string | null = null;
  let title: string | null = null;
  try {
    const tags = (await exifr.parse(bytes, {
      tiff: true,
      exif: true,
      gps: true,
      xmp: true,
      iptc: true,
      icc: true,
      mergeOutput: false,
      translateValues: true,
    })) as Record<string, Record<string, unknown>> | undefined;
    for (const [group, values] of Object.entries(tags ?? {})) {
      if (!values || typeof values !== "object") continue;
      const ns = group === "ifd0" || group === "exif" || group === "ifd1" ? "exif" : group;
      extra[ns] ??= {};
      for (const [k, v] of Object.entries(values)) extra[ns]![snake(k)] = plain(v);
    }
    const gps = await exifr.gps(bytes).catch(() => undefined);
    if (gps && Number.isFinite(gps.latitude))
      extra.gps = { latitude: gps.latitude, longitude: gps.longitude };
    const exif = extra.exif ?? {};
    created = isoDate(exif.date_time_original ?? exif.create_date ?? exif.modify_date);
    title = typeof exif.image_description === "string" ? exif.image_description : null;
  } catch {
    // No metadata block, or one exifr cannot read: the image facts above still stand.
  }
  return { text: "", title, created, extra };
}
