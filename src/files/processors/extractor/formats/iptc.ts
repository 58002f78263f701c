/**
 * IPTC IIM (the application record, 2:xx) from a raw block — bare, or inside Photoshop's 8BIM
 * resources as JPEG carries it. Used where exifr cannot reach the block (TIFF, WebP).
 */
import { inflateSync } from "node:zlib";

/** Dataset numbers of record 2 → keys, named like exifr's IPTC output in snake_case. */
const DATASETS: Record<number, string> = {
  5: "object_name",
  15: "category",
  25: "keywords",
  40: "special_instructions",
  55: "date_created",
  60: "time_created",
  80: "byline",
  85: "byline_title",
  90: "city",
  92: "sublocation",
  95: "state",
  100: "country_code",
  101: "country",
  103: "original_transmission_reference",
  105: "headline",
  110: "credit",
  115: "source",
  116: "copyright_notice",
  118: "contact",
  120: "caption",
  122: "writer",
};
const REPEATABLE = new Set(["keywords", "byline", "byline_title", "contact", "writer"]);

export function readIptc(block: Buffer): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let i = block.indexOf(Buffer.from([0x1c, 0x02]));
  while (i >= 0 && i + 5 <= block.length && block[i] === 0x1c) {
    const record = block[i + 1];
    const dataset = block[i + 2] ?? 0;
    const length = block.readUInt16BE(i + 3);
    if (length & 0x8000) break; // extended lengths are only used for binary datasets
    const value = block.toString("utf8", i + 5, Math.min(block.length, i + 5 + length)).replace(/\0+$/, "");
    const key = record === 2 ? DATASETS[dataset] : undefined;
    if (key && value) {
      if (REPEATABLE.has(key)) out[key] = [...((out[key] as string[] | undefined) ?? []), value];
      else out[key] = value;
    }
    i += 5 + length;
  }
  for (const [k, v] of Object.entries(out)) if (Array.isArray(v) && v.length === 1) out[k] = v[0];
  if (typeof out.date_created === "string" && /^\d{8}$/.test(out.date_created)) {
    const d = out.date_created;
    out.date_created = `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;
  }
  return out;
}

/**
 * PNG has no IPTC chunk; exiftool and ImageMagick store it as a text chunk named "Raw profile
 * type iptc" (zTXt, iTXt or tEXt) holding the block in hex after a short header.
 */
export function pngIptcProfile(png: Buffer): Buffer | undefined {
  let offset = 8;
  while (offset + 12 <= png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const data = png.subarray(offset + 8, Math.min(png.length, offset + 8 + length));
    offset += 12 + length;
    if (type !== "zTXt" && type !== "tEXt" && type !== "iTXt") continue;
    const keywordEnd = data.indexOf(0);
    if (data.toString("latin1", 0, keywordEnd).toLowerCase() !== "raw profile type iptc") continue;
    let text: string;
    try {
      if (type === "tEXt") text = data.toString("latin1", keywordEnd + 1);
      else if (type === "zTXt") text = inflateSync(data.subarray(keywordEnd + 2)).toString("latin1");
      else {
        // iTXt: keyword\0 flag method language\0 translated\0 text
        const compressed = data[keywordEnd + 1] === 1;
        let p = data.indexOf(0, keywordEnd + 3);
        p = data.indexOf(0, p + 1);
        const body = data.subarray(p + 1);
        text = (compressed ? inflateSync(body) : body).toString("latin1");
      }
    } catch {
      return undefined;
    }
    // "\niptc\n   <length>\n<hex…>"
    const hex = text
      .trim()
      .split("\n")
      .slice(2)
      .join("")
      .replace(/[^0-9a-f]/gi, "");
    return hex ? Buffer.from(hex, "hex") : undefined;
  }
  return undefined;
}
