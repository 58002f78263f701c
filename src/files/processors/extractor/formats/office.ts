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
    ["keywords", "cp:keywords"],
  ] as const) {
    const v = tag(core, el);
    if (v) dc[key] = v;
  }
  const office: Record<string, unknown> = {};
  for (const [key, el] of [
    ["application", "Application"],
    ["company", "Company"],
  ] as const) {
    const v = tag(app, el);
    if (v) office[key] = v;
  }
  for (const [key, el] of [
    ["pages", "Pages"],
    ["words", "Words"],
    ["characters", "Characters"],
    ["paragraphs", "Paragraphs"],
    ["slides", "Slides"],
  ] as const) {
    const v = Number(tag(app, el) ?? Number.NaN);
    if (Number.isFinite(v)) office[key] = v;
  }
  return { dc, office, title: tag(core, "dc:title"), created: isoDate(tag(core, "dcterms:created")) };
}

/**
 * The sheets or slides in the order the workbook or presentation lists them (through its
 * relationships part), with their names; else the parts sorted by number (sheet10 after sheet9).
 */
function orderedParts(
  files: Unzipped,
  main: string,
  listed: RegExp,
  fallback: RegExp,
): Array<{ path: string; name: string | null }> {
  const dir = main.slice(0, main.lastIndexOf("/") + 1);
  const rels = part(files, `${dir}_rels/${main.slice(dir.length)}.rels`) ?? "";
  const targets = new Map<string, string>();
  for (const [rel] of rels.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]+)"/.exec(rel)?.[1];
    const target = /\bTarget="([^"]+)"/.exec(rel)?.[1];
    if (id && target) targets.set(id, target.startsWith("/") ? target.slice(1) : dir + target);
  }
  const ordered: Array<{ path: string; name: string | null }> = [];
  for (const [el] of (part(files, main) ?? "").matchAll(listed)) {
    const target = targets.get(/\br:id="([^"]+)"/.exec(el)?.[1] ?? "");
    const name = /\bname="([^"]*)"/.exec(el)?.[1];
    if (target && files[target]) ordered.push({ path: target, name: name ? decodeXml(name) : null });
  }
  if (ordered.length) return ordered;
  const number = (n: string) => Number(/(\d+)\.xml$/.exec(n)?.[1]);
  return Object.keys(files)
    .filter((n) => fallback.test(n))
    .sort((a, b) => number(a) - number(b))
    .map((path) => ({ path, name: null }));
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
    const sheets = orderedParts(
      files,
      "xl/workbook.xml",
      /<sheet\b[^>]*>/g,
      /^xl\/worksheets\/sheet\d+\.xml$/,
    );
    const lines: string[] = [];
    for (const sheet of sheets) {
      lines.push(sheet.name ?? "");
      for (const row of (part(files, sheet.path) ?? "").matchAll(/<row[^>]*>([\s\S]*?)<\/row>/g)) {
        const values = [...(row[1] ?? "").matchAll(/<c([^>]*)>([\s\S]*?)<\/c>/g)].map(
          ([, attrs = "", body = ""]) => {
            const v = tag(body, "v") ?? xmlText(tag(body, "is") ?? "", /<\/t>/g).replace(/\n/g, "");
            return /t="s"/.test(attrs) ? (strings[Number(v)] ?? "") : v;
          },
        );
        lines.push(values.join("\t"));
      }
      lines.push("");
    }
    text = lines.join("\n");
    props.office.sheets = sheets.length;
    const names = sheets.map((s) => s.name).filter((n): n is string => !!n);
    if (names.length) props.office.sheet_names = names;
  } else {
    const slides = orderedParts(
      files,
      "ppt/presentation.xml",
      /<p:sldId\b[^>]*>/g,
      /^ppt\/slides\/slide\d+\.xml$/,
    );
    text = slides.map((s) => xmlText(part(files, s.path) ?? "", /<\/a:p>/g)).join("\n\n");
    props.office.slides ??= slides.length;
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
  const office: Record<string, unknown> = {};
  let text: string;
  if (body.includes("<office:spreadsheet")) {
    const sheets = odsSheets(body);
    text = sheets.map((s) => `${s.name}\n${s.rows.join("\n")}`).join("\n\n");
    office.sheets = sheets.length;
    office.sheet_names = sheets.map((s) => s.name);
  } else {
    text = odfText(body);
    if (body.includes("<office:presentation"))
      office.slides = (
        body.replace(/<presentation:notes\b[\s\S]*?<\/presentation:notes>/g, "").match(/<draw:page\b/g) ?? []
      ).length;
  }
  const dc: Record<string, unknown> = {};
  for (const [key, el] of [
    ["title", "dc:title"],
    ["creator", "dc:creator"],
    ["initial_creator", "meta:initial-creator"],
    ["subject", "dc:subject"],
    ["description", "dc:description"],
    ["language", "dc:language"],
  ] as const) {
    const v = tag(meta, el);
    if (v) dc[key] = v;
  }
  const modified = isoDate(tag(meta, "dc:date"));
  if (modified) dc.modified = modified;
  const keywords = [...(meta ?? "").matchAll(/<meta:keyword>([\s\S]*?)<\/meta:keyword>/g)].map((m) =>
    decodeXml(m[1] ?? "").trim(),
  );
  if (keywords.length) dc.keywords = keywords.join(", ");
  const generator = tag(meta, "meta:generator");
  if (generator) office.application = generator;
  const stats = /<meta:document-statistic\b([^>]*)>/.exec(meta ?? "")?.[1] ?? "";
  for (const [key, attr] of [
    ["pages", "page-count"],
    ["words", "word-count"],
    ["characters", "character-count"],
    ["paragraphs", "paragraph-count"],
  ] as const) {
    const v = Number(new RegExp(`meta:${attr}="(\\d+)"`).exec(stats)?.[1] ?? Number.NaN);
    if (Number.isFinite(v)) office[key] = v;
  }
  return {
    text: normaliseWhitespace(text),
    title: tag(meta, "dc:title"),
    created: isoDate(tag(meta, "meta:creation-date")),
    extra: {
      ...(Object.keys(dc).length ? { dc } : {}),
      ...(Object.keys(office).length ? { office } : {}),
    },
  };
}

function odfText(xml: string): string {
  return xmlText(
    xml
      .replace(/<text:tab\/>/g, "\t")
      .replace(/<text:line-break\/>/g, "\n")
      .replace(/<text:s\b[^>]*\/>/g, " "),
    /<\/text:(p|h)>|<\/table:table-row>|<\/draw:page>/g,
  );
}

const MAX_REPEATED_CELLS = 256;

/**
 * OpenDocument sheets: one line per non-empty row, cells separated by tabs. Repeated cells
 * (table:number-columns-repeated) are expanded up to a cap: a row may declare thousands of empty
 * columns.
 */
function odsSheets(body: string): Array<{ name: string; rows: string[] }> {
  const sheets: Array<{ name: string; rows: string[] }> = [];
  for (const table of body.matchAll(/<table:table(\s[^>]*)?>([\s\S]*?)<\/table:table>/g)) {
    const name = decodeXml(/table:name="([^"]*)"/.exec(table[1] ?? "")?.[1] ?? "");
    const rows: string[] = [];
    for (const row of (table[2] ?? "").matchAll(/<table:table-row\b[^>]*>([\s\S]*?)<\/table:table-row>/g)) {
      const cells: string[] = [];
      for (const cell of (row[1] ?? "").matchAll(
        /<table:(?:covered-)?table-cell\b([^>]*?)(?:\/>|>([\s\S]*?)<\/table:(?:covered-)?table-cell>)/g,
      )) {
        const value = normaliseWhitespace(odfText(cell[2] ?? "")).replace(/\n/g, " ");
        const repeat = Number(/table:number-columns-repeated="(\d+)"/.exec(cell[1] ?? "")?.[1] ?? 1);
        for (let i = 0; i < Math.min(repeat, MAX_REPEATED_CELLS); i++) cells.push(value);
      }
      while (cells.length && !cells[cells.length - 1]) cells.pop();
      if (cells.length) rows.push(cells.join("\t"));
    }
    sheets.push({ name, rows });
  }
  return sheets;
}
