/**
 * Images: dimensions and format (sharp), EXIF/GPS/XMP/IPTC/ICC (exifr). exifr reads the file
 * itself where it knows the format; for the others (WebP) and where it fails (IPTC inside a
 * TIFF), the metadata blocks sharp finds are read instead.
 */
import exifr from "exifr";
import sharp, { type Metadata } from "sharp";
import { type Extracted, isoDate, snakeCase } from "../result.ts";
import { pngIptcProfile, readIptc } from "./iptc.ts";

type Groups = Record<string, Record<string, unknown>>;

const OPTIONS = {
  tiff: true,
  exif: true,
  gps: true,
  xmp: true,
  iptc: true,
  icc: true,
  mergeOutput: false,
  translateValues: true,
} as const;

const isBinary = (s: string) =>
  [...s].some((c) => {
    const n = c.charCodeAt(0);
    return n < 9 || (n > 13 && n < 32);
  });

/**
 * EXIF dates carry no zone; exifr builds them in the process's time zone. Their wall-clock
 * reading is taken back as UTC (the same answer whatever TZ the server runs in), moved by the
 * EXIF 2.31 offset (OffsetTimeOriginal…) when the file has one.
 */
function exifDate(d: Date, offset?: unknown): string | null {
  if (Number.isNaN(d.getTime())) return null;
  const wall = Date.UTC(
    d.getFullYear(),
    d.getMonth(),
    d.getDate(),
    d.getHours(),
    d.getMinutes(),
    d.getSeconds(),
    d.getMilliseconds(),
  );
  const m = typeof offset === "string" ? /^([+-])(\d{2}):?(\d{2})$/.exec(offset.trim()) : null;
  const shift = m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
  return new Date(wall - shift).toISOString();
}

const EXIF_OFFSETS: Record<string, string> = {
  DateTimeOriginal: "OffsetTimeOriginal",
  CreateDate: "OffsetTimeDigitized",
  ModifyDate: "OffsetTime",
};

/** JSON-friendly values: dates as ISO, bytes as a size, XMP language alternatives as their text. */
const plain = (v: unknown): unknown => {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  if (ArrayBuffer.isView(v) && "length" in v)
    return (v.length as number) <= 16
      ? Array.from(v as unknown as ArrayLike<number>)
      : `${v.byteLength} bytes`;
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object" && "value" in v && "lang" in v) return plain(v.value);
  // Raw binary read as text (IPTC record versions and the like): a number, or its size.
  if (typeof v === "string" && isBinary(v))
    return v.length <= 4 ? [...v].reduce((n, c) => n * 256 + c.charCodeAt(0), 0) : `${v.length} bytes`;
  return v;
};

const hasData = (g: Groups | undefined) => !!g && Object.keys(g).some((k) => k !== "errors");

async function readTags(bytes: Buffer, meta: Metadata | undefined): Promise<Groups> {
  let tags = (await exifr.parse(bytes, OPTIONS).catch(() => undefined)) as Groups | undefined;
  if (tags?.errors) {
    // exifr stops at IPTC stored as a TIFF tag: read the rest without it (IPTC comes from sharp below).
    const retry = (await exifr.parse(bytes, { ...OPTIONS, iptc: false }).catch(() => undefined)) as
      | Groups
      | undefined;
    if (hasData(retry)) tags = retry;
  }
  if (!tags || !hasData(tags)) {
    tags = {};
    if (meta?.exif) {
      const tiff =
        meta.exif.subarray(0, 6).toString("latin1") === "Exif\0\0" ? meta.exif.subarray(6) : meta.exif;
      Object.assign(tags, await exifr.parse(tiff, { ...OPTIONS, iptc: false, xmp: false }).catch(() => ({})));
    }
  }
  if (meta?.xmp) {
    // exifr skips XMP in some containers (HEIC): add the groups it did not read from sharp's block.
    const xmp = (await exifr.sidecar(meta.xmp, OPTIONS, "xmp").catch(() => undefined)) as Groups | undefined;
    for (const [group, values] of Object.entries(xmp ?? {})) tags[group] ??= values;
  }
  const iptcBlock = meta?.iptc ?? (meta?.format === "png" ? pngIptcProfile(bytes) : undefined);
  if (!tags.iptc && iptcBlock) {
    const iptc = readIptc(iptcBlock);
    if (Object.keys(iptc).length) tags.iptc = iptc;
  }
  delete tags.errors;
  return tags;
}

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
      ...(meta.space ? { color_space: meta.space } : {}),
    });
  const extra: Groups = { image };
  let tags: Groups = {};
  try {
    tags = await readTags(bytes, meta);
  } catch {
    // No metadata block, or one exifr cannot read: the image facts above still stand.
  }
  for (const [group, values] of Object.entries(tags)) {
    if (!values || typeof values !== "object") continue;
    const ns = group === "ifd0" || group === "exif" || group === "ifd1" ? "exif" : group;
    extra[ns] ??= {};
    const exifGroup = ns === "exif" || group === "gps";
    for (const [k, v] of Object.entries(values)) {
      if (group === "xmlns") continue;
      extra[ns]![snakeCase(k)] =
        exifGroup && v instanceof Date
          ? exifDate(v, values[EXIF_OFFSETS[k] ?? ""] ?? tags.exif?.[EXIF_OFFSETS[k] ?? ""])
          : plain(v);
    }
  }
  delete extra.xmlns;
  const gps = tags.gps;
  if (gps && Number.isFinite(gps.latitude) && Number.isFinite(gps.longitude)) {
    const round = (n: unknown) => Math.round(Number(n) * 1e7) / 1e7;
    extra.gps = { ...extra.gps, latitude: round(gps.latitude), longitude: round(gps.longitude) };
    if (Number.isFinite(gps.GPSAltitude))
      extra.gps.altitude = (gps.GPSAltitudeRef === 1 ? -1 : 1) * Number(gps.GPSAltitude);
  }
  const exif = extra.exif ?? {};
  const xmp = extra.xmp ?? {};
  const iptc = extra.iptc ?? {};
  const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
  const title =
    text(extra.dc?.title) ?? text(iptc.object_name) ?? text(exif.image_description) ?? text(iptc.headline);
  const created = isoDate(
    exif.date_time_original ?? exif.create_date ?? xmp.create_date ?? iptc.date_created ?? exif.modify_date,
  );
  return { text: "", title, created, extra };
}
