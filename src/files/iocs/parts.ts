/**
 * The texts of an extraction to scan for indicators: the title, the content cut at the entry markers
 * the extractor writes for archive members and e-mail attachments ("── name ──", so each indicator
 * names its entry), and every string of the metadata (headers, links, manifest) by its path; the
 * names of archive members and attachments are tagged as names (no bare domains in them).
 */
import type { TextPart } from "./types.ts";

/** Hashes of the file itself and its own name are not indicators found in it (nor a previous scan). */
const SKIPPED_NAMESPACES = new Set(["hashes", "file", "loupe", "iocs"]);
/** Identifiers shaped like e-mail addresses that are not mailboxes. */
const SKIPPED_KEYS = new Set(["message_id", "in_reply_to", "references"]);
/** Keys whose strings are file names (tagged `names`, so "eicar.com" is not a domain); "name" only inside a list of members. */
const FILE_NAME_KEYS = new Set(["filename", "file_name"]);
const MEMBER_LISTS = /\.(?:entries|attachments|files|embedded|objects)\.\d+$/;
const MAX_DEPTH = 8;
/** Metadata strings scanned at most; FILES_IOC_MAX_CHARS bounds their total size. */
const MAX_VALUES = 20_000;

/** One marker per line, bounded: linear. */
const ENTRY_MARKER = /^── (?:attachment )?([^\n]{0,1000}) ──$/gm;

export interface Extraction {
  content: string | null;
  title?: string | null;
  extra?: Record<string, unknown>;
}

export function extractionParts(x: Extraction): TextPart[] {
  const parts: TextPart[] = [];
  if (x.title) parts.push({ part: "title", text: x.title });
  if (x.content) parts.push(...contentParts(x.content));
  const values: TextPart[] = [];
  for (const [ns, value] of Object.entries(x.extra ?? {}))
    if (!SKIPPED_NAMESPACES.has(ns)) collect(value, `extra.${ns}`, 0, values);
  return [...parts, ...values];
}

function contentParts(content: string): TextPart[] {
  const parts: TextPart[] = [];
  let page: string | null = null;
  let from = 0;
  for (const m of content.matchAll(ENTRY_MARKER)) {
    if (m.index > from)
      parts.push({ part: "content", page, offset: from, text: content.slice(from, m.index) });
    page = m[1] ?? null;
    from = m.index + m[0].length;
  }
  parts.push({ part: "content", page, offset: from, text: content.slice(from) });
  return parts;
}

function collect(value: unknown, path: string, depth: number, out: TextPart[]): void {
  if (out.length >= MAX_VALUES || depth > MAX_DEPTH) return;
  if (typeof value === "string") {
    if (value) out.push({ part: path, text: value, ...(isFileName(path) ? { names: true } : {}) });
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) collect(v, `${path}.${i}`, depth + 1, out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value))
      if (!SKIPPED_KEYS.has(k)) collect(v, `${path}.${k}`, depth + 1, out);
  }
}

function isFileName(path: string): boolean {
  const dot = path.lastIndexOf(".");
  const key = path.slice(dot + 1);
  return FILE_NAME_KEYS.has(key) || (key === "name" && MEMBER_LISTS.test(path.slice(0, dot)));
}
