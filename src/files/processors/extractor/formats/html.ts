/**
 * HTML/XHTML: the <title>, meta tags, the visible text (scripts and styles dropped) and the link
 * targets, which the visible text loses (`<a href="https://evil.example/login">Click</a>`).
 */
import { HTMLElement, parse } from "node-html-parser";
import type { Extracted } from "../result.ts";
import { decodeText } from "./text.ts";

/** Distinct link targets kept per document; `links_truncated` says when there were more. */
export const MAX_HTML_LINKS = 1000;
/** Longer targets (inline `data:` payloads, padding attacks) are dropped, not cut into a wrong URL. */
export const MAX_HTML_LINK_CHARS = 4096;

/** Elements whose attribute loads or leads to another address. */
const LINK_ATTRIBUTES: Record<string, string> = {
  a: "href",
  area: "href",
  link: "href",
  img: "src",
  iframe: "src",
  frame: "src",
  embed: "src",
  script: "src",
  source: "src",
  form: "action",
  object: "data",
};
/** `0; url=https://…` in a refresh meta tag; bounded, one attribute at most MAX_HTML_LINK_CHARS. */
const REFRESH_URL = /^\s*\d*(?:\.\d*)?\s*[;,]?\s*(?:url\s*=\s*)?['"]?([^'"\s]{1,4096})/i;

const PARSE_OPTIONS = { blockTextElements: { script: false, style: false, noscript: false, pre: true } };

export interface HtmlLinks {
  links: string[];
  truncated: boolean;
}

export function extractHtml(bytes: Buffer): Extracted {
  const { text: source, encoding } = decodeText(bytes);
  const root = parse(source, PARSE_OPTIONS);
  const meta: Record<string, string> = {};
  for (const m of root.querySelectorAll("meta")) {
    const name = m.getAttribute("name") ?? m.getAttribute("property");
    const content = m.getAttribute("content");
    if (name && content) meta[name.toLowerCase().replace(/[^a-z0-9]+/g, "_")] = content;
  }
  const title = root.querySelector("title")?.text.trim() || null;
  const lang = root.querySelector("html")?.getAttribute("lang") ?? null;
  const body = root.querySelector("body") ?? root;
  const { links, truncated } = linkTargets(root);
  return {
    text: body.structuredText,
    title,
    extra: {
      html: {
        encoding,
        ...(lang ? { lang } : {}),
        ...meta,
        link_count: root.querySelectorAll("a").length,
        ...linksField(links, truncated),
      },
    },
  };
}

/** `links` (and `links_truncated`) when there are any, so a page without links adds nothing. */
export function linksField(links: string[], truncated: boolean): Record<string, unknown> {
  return {
    ...(links.length ? { links } : {}),
    ...(truncated ? { links_truncated: true } : {}),
  };
}

/**
 * The absolute targets of links, images, frames, forms, scripts and refresh tags, in document
 * order, de-duplicated, at most MAX_HTML_LINKS. Relative targets name no host and are left out,
 * as are inline `data:` payloads.
 */
export function linkTargets(root: HTMLElement): HtmlLinks {
  const seen = new Set<string>();
  let truncated = false;
  for (const el of elements(root)) {
    const target = targetOf(el);
    if (!target || seen.has(target)) continue;
    if (seen.size >= MAX_HTML_LINKS) {
      truncated = true;
      break;
    }
    seen.add(target);
  }
  return { links: [...seen], truncated };
}

/** Every element in document order, walked with a stack (deep nesting does not recurse). */
function* elements(root: HTMLElement): Generator<HTMLElement> {
  const stack: HTMLElement[] = [root];
  while (stack.length) {
    const el = stack.pop() as HTMLElement;
    yield el;
    for (let i = el.childNodes.length - 1; i >= 0; i--) {
      const child = el.childNodes[i];
      if (child instanceof HTMLElement) stack.push(child);
    }
  }
}

function targetOf(el: HTMLElement): string | null {
  const tag = el.rawTagName?.toLowerCase() ?? "";
  let value: string | undefined;
  if (tag === "meta") {
    if (el.getAttribute("http-equiv")?.toLowerCase() !== "refresh") return null;
    const content = el.getAttribute("content") ?? "";
    value = content.length <= MAX_HTML_LINK_CHARS ? REFRESH_URL.exec(content)?.[1] : undefined;
  } else {
    const attr = LINK_ATTRIBUTES[tag];
    value = attr ? el.getAttribute(attr) : undefined;
  }
  const target = value?.trim();
  if (!target || target.length > MAX_HTML_LINK_CHARS) return null;
  // A scheme (`https:`, `mailto:`, `javascript:`) or a protocol-relative `//host`.
  if (!/^(?:[a-z][a-z0-9+.-]{0,30}:|\/\/)/i.test(target) || /^data:/i.test(target)) return null;
  return target;
}

/** The visible text and the link targets of an HTML fragment (e-mail bodies). */
export function htmlContent(html: string): HtmlLinks & { text: string } {
  const root = parse(html, PARSE_OPTIONS);
  return { text: (root.querySelector("body") ?? root).structuredText, ...linkTargets(root) };
}

/** The visible text of an HTML fragment (e-mail bodies). */
export function htmlToText(html: string): string {
  const root = parse(html, PARSE_OPTIONS);
  return (root.querySelector("body") ?? root).structuredText;
}
