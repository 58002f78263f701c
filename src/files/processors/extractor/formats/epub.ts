/**
 * EPUB: the package document (found through META-INF/container.xml) gives the title, authors,
 * date and the reading order (spine); each chapter's XHTML becomes text in that order.
 */
import { strFromU8, type Unzipped } from "fflate";
import { type Extracted, isoDate, normaliseWhitespace } from "../result.ts";
import { htmlToText } from "./html.ts";

const first = (xml: string, tag: string) =>
  new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`).exec(xml)?.[1]?.trim() || null;
const all = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => (m[1] ?? "").trim());

export function extractEpub(files: Unzipped): Extracted {
  const container = files["META-INF/container.xml"] ? strFromU8(files["META-INF/container.xml"]) : "";
  const opfPath =
    /full-path="([^"]+)"/.exec(container)?.[1] ?? Object.keys(files).find((n) => n.endsWith(".opf")) ?? "";
  const opf = files[opfPath] ? strFromU8(files[opfPath]) : "";
  const base = opfPath.includes("/") ? opfPath.slice(0, opfPath.lastIndexOf("/") + 1) : "";
  const manifest = new Map<string, string>();
  for (const m of opf.matchAll(/<item\b[^>]*>/g)) {
    const id = /\bid="([^"]+)"/.exec(m[0])?.[1];
    const href = /\bhref="([^"]+)"/.exec(m[0])?.[1];
    if (id && href) manifest.set(id, base + decodeURIComponent(href));
  }
  const spine = [...opf.matchAll(/<itemref\b[^>]*idref="([^"]+)"/g)]
    .map((m) => manifest.get(m[1] ?? ""))
    .filter((p): p is string => !!p);
  const chapters = (
    spine.length
      ? spine
      : Object.keys(files)
          .filter((n) => /\.x?html?$/i.test(n))
          .sort()
  ).filter((p) => files[p]);
  const text = chapters.map((p) => htmlToText(strFromU8(files[p]!))).join("\n\n");
  const dc: Record<string, unknown> = {};
  const creators = all(opf, "dc:creator");
  if (creators.length) dc.creator = creators.join(", ");
  for (const key of ["language", "publisher", "identifier", "description"]) {
    const v = first(opf, `dc:${key}`);
    if (v) dc[key] = v;
  }
  // EPUB 3 keeps other dates in <meta property="dcterms:…">; the generator in <meta name="generator">.
  const property = (name: string) =>
    new RegExp(`<meta\\b[^>]*property="${name}"[^>]*>([^<]*)</meta>`).exec(opf)?.[1]?.trim() || null;
  const modified = isoDate(property("dcterms:modified"));
  if (modified) dc.modified = modified;
  const epub: Record<string, unknown> = { chapter_count: chapters.length };
  const version = /<package\b[^>]*\bversion="([^"]+)"/.exec(opf)?.[1];
  if (version) epub.version = version;
  const generator =
    /<meta\b[^>]*name="generator"[^>]*content="([^"]*)"/.exec(opf)?.[1] ??
    /<meta\b[^>]*content="([^"]*)"[^>]*name="generator"/.exec(opf)?.[1];
  if (generator) epub.generator = generator;
  return {
    text: normaliseWhitespace(text),
    title: first(opf, "dc:title"),
    created: isoDate(first(opf, "dc:date") ?? property("dcterms:created")),
    extra: { ...(Object.keys(dc).length ? { dc } : {}), epub },
  };
}
