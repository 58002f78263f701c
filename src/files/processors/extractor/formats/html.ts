/** HTML/XHTML: the <title>, meta tags, and the visible text (scripts and styles dropped). */
import { parse } from "node-html-parser";
import type { Extracted } from "../result.ts";
import { decodeText } from "./text.ts";

export function extractHtml(bytes: Buffer): Extracted {
  const { text: source, encoding } = decodeText(bytes);
  const root = parse(source, {
    blockTextElements: { script: false, style: false, noscript: false, pre: true },
  });
  const meta: Record<string, string> = {};
  for (const m of root.querySelectorAll("meta")) {
    const name = m.getAttribute("name") ?? m.getAttribute("property");
    const content = m.getAttribute("content");
    if (name && content) meta[name.toLowerCase().replace(/[^a-z0-9]+/g, "_")] = content;
  }
  const title = root.querySelector("title")?.text.trim() || null;
  const lang = root.querySelector("html")?.getAttribute("lang") ?? null;
  const body = root.querySelector("body") ?? root;
  return {
    text: body.structuredText,
    title,
    extra: {
      html: { encoding, ...(lang ? { lang } : {}), ...meta, link_count: root.querySelectorAll("a").length },
    },
  };
}

/** The visible text of an HTML fragment (email bodies). */
export function htmlToText(html: string): string {
  const root = parse(html, {
    blockTextElements: { script: false, style: false, noscript: false, pre: true },
  });
  return (root.querySelector("body") ?? root).structuredText;
}
