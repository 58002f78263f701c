/**
 * Zip-based documents: OOXML (DOCX with mammoth; XLSX/PPTX from their XML parts) and
 * OpenDocument (ODT/ODS/ODP from content.xml), plus their metadata (docProps/core.xml, meta.xml).
 */
import { strFromU8, type Unzipped } from "fflate";
import mammoth from "mammoth";
import { type Extracted, isoDate, normaliseWhitespace } from "../result.ts";

const decodeXml = (s: string) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCodePoint(Number.parseInt(n, 16)))
    .replace(/&amp;/g, "&");

/** Text of XML elements, with line breaks at paragraph-like closing tags. */
function xmlText(xml: string, breakAfter: RegExp): string {
  return decodeXml(xml.replace(breakAfter, "$&\n").replace(/<[^>]+>/g, "")).replace(/[ \t]+\n/g, "\n");
}

function tag(xml: string | undefined, name: string): string | null {
  if (!xml) return null;
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(xml);
  return m?.[1] ? decodeXml(m[1]).trim() || null : null;
}

const part = (files: Unzipped, name: string) => (files[name] ? strFromU8(files[name]) : undefined);

function coreProperties(files: Unzipped) {
  const core = part(files, "docProps/core.xml");
  const app = part(files, "docProps/app.xml");
  const dc: Record<string, unknown> = {};
  for (const [key, el] of [
    ["title", "dc:title"],
    ["creator", "dc:creator"],
    ["subject", "dc:subject"],
    ["description", "dc:description"],
    ["last_modified_by", "cp:lastModifiedBy"],
    ["modified", "dcterms:modified"],
    ["language", "dc:language"],
  ] as const) {
    const v = tag(core, el);
    if (v) dc[key] = v;
  }
  const office: Record<string, unknown> = {};
  for (const [key, el] of [
    ["application", "Application"],
    ["pages", "Pages"],
    ["words", "Words"],
    ["slides", "Slides"],
    ["company", "Company"],
  ] as const) {
    const v = tag(app, el);
    if (v) office[key] = v;
  }
  return { dc, office, title: tag(core, "dc:title"), created: isoDate(tag(core, "dcterms:created")) };
}

export async function extractOoxml(
  files: Unzipped,
  bytes: Buffer,
  kind: "docx" | "xlsx" | "pptx",
): Promise<Extracted> {
  const props = coreProperties(files);
  let text = "";
  if (kind === "docx") {
    text = (await mammoth.extractRawText({ buffer: bytes })).value;
  } else if (kind === "xlsx") {
    const shared = part(files, "xl/sharedStrings.xml") ?? "";
    const strings = [...shared.matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) =>
      xmlText(m[1] ?? "", /<\/t>/g).replace(/\n/g, ""),
    );
    const sheets = Object.keys(files)
      .filter((n) => /^xl\/worksheets\/sheet\d+\.xml$/.test(n))
      .sort();
    const cells: string[] = [];
    for (const sheet of sheets) {
      for (const row of (part(files, sheet) ?? "").matchAll(/<row[^>]*>([\s\S]*?)<\/row>/g)) {
        const values = [...(row[1] ?? "").matchAll(/<c([^>]*)>([\s\S]*?)<\/c>/g)].map(
          ([, attrs = "", body = ""]) => {
            const v = tag(body, "v") ?? tag(body, "t") ?? "";
            return /t="s"/.test(attrs) ? (strings[Number(v)] ?? "") : v;
          },
        );
        cells.push(values.join("\t"));
      }
      cells.push("");
    }
    text = cells.join("\n");
    props.office.sheets = String(sheets.length);
  } else {
    const slides = Object.keys(files)
      .filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n))
      .sort((a, b) => Number(/(\d+)\.xml$/.exec(a)?.[1]) - Number(/(\d+)\.xml$/.exec(b)?.[1]));
    text = slides.map((s) => xmlText(part(files, s) ?? "", /<\/a:p>/g)).join("\n\n");
    props.office.slides ??= String(slides.length);
  }
  return {
    text: normaliseWhitespace(text),
    title: props.title,
    created: props.created,
    extra: {
      ...(Object.keys(props.dc).length ? { dc: props.dc } : {}),
      ...(Object.keys(props.office).length ? { office: props.office } : {}),
    },
  };
}

export function extractOdf(files: Unzipped): Extracted {
  const content = part(files, "content.xml") ?? "";
  const meta = part(files, "meta.xml");
  const body = /<office:body>([\s\S]*)<\/office:body>/.exec(content)?.[1] ?? content;
  const text = xmlText(
    body.replace(/<text:tab\/>/g, "\t").replace(/<text:line-break\/>/g, "\n"),
    /<\/text:(p|h)>|<\/table:table-row>/g,
  );
  const dc: Record<string, unknown> = {};
  for (const [key, el] of [
    ["title", "dc:title"],
    ["creator", "dc:creator"],
    ["initial_creator", "meta:initial-creator"],
    ["subject", "dc:subject"],
    ["description", "dc:description"],
    ["language", "dc:language"],
    ["generator", "meta:generator"],
  ] as const) {
    const v = tag(meta, el);
    if (v) dc[key] = v;
  }
  return {
    text: normaliseWhitespace(text),
    title: tag(meta, "dc:title"),
    created: isoDate(tag(meta, "meta:creation-date")),
    extra: Object.keys(dc).length ? { dc } : {},
  };
}
