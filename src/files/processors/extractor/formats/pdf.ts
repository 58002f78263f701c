/** PDF with pdf.js (through unpdf): text per page, the info dictionary, XMP, page count. */
import { extractText, getDocumentProxy, getMeta } from "unpdf";
import { type Extracted, isoDate, ParseFailure, snakeCase } from "../result.ts";

/** PDF dates look like D:20261122143000+01'00'. */
export function pdfDate(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const m = /^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?/.exec(
    value.trim(),
  );
  if (!m) return isoDate(value);
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", sign, th = "00", tm = "00"] = m;
  const zone = !sign || sign.toUpperCase() === "Z" ? "Z" : `${sign}${th}:${tm}`;
  return isoDate(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
}

export async function extractPdf(bytes: Buffer): Promise<Extracted> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (err) {
    if ((err as { name?: string }).name === "PasswordException")
      throw new ParseFailure("the PDF is encrypted and needs a password to open");
    throw new ParseFailure(`not a readable PDF: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    const { info, metadata } = await getMeta(pdf);
    const infoDict = (info ?? {}) as Record<string, unknown>;
    const pdfNs: Record<string, unknown> = { page_count: pdf.numPages };
    // pdf.js opened it without a password; permissions are only set when the file is encrypted.
    const permissions = await pdf.getPermissions().catch(() => null);
    if (permissions) pdfNs.encrypted = true;
    for (const [k, v] of Object.entries(infoDict)) {
      if (v === undefined || v === null || typeof v === "object") continue;
      pdfNs[snakeCase(k)] = k.endsWith("Date") ? (pdfDate(v) ?? String(v)) : v;
    }
    const dc: Record<string, unknown> = {};
    const xmp = metadata as { get?: (k: string) => unknown } | null;
    for (const key of [
      "dc:title",
      "dc:creator",
      "dc:description",
      "dc:subject",
      "xmp:createdate",
      "xmp:creatortool",
      "pdf:producer",
    ]) {
      const v = xmp?.get?.(key);
      if (v !== undefined && v !== null && v !== "")
        dc[key.replace(/^[a-z]+:/, "")] = Array.isArray(v) ? v.join(", ") : String(v);
    }
    const title =
      (typeof infoDict.Title === "string" && infoDict.Title.trim()) ||
      (dc.title as string | undefined) ||
      null;
    const pages = Array.isArray(text) ? text : [String(text)];
    return {
      text: pages.join("\n\n"),
      title,
      created: pdfDate(infoDict.CreationDate) ?? isoDate(dc.createdate),
      extra: {
        pdf: pdfNs,
        ...(Object.keys(dc).length > 0 ? { xmp: dc } : {}),
        ...(typeof infoDict.Author === "string" ? { dc: { creator: infoDict.Author } } : {}),
      },
    };
  } finally {
    await pdf.cleanup();
  }
}
