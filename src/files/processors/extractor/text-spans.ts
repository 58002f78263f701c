/**
 * Which part of the extracted text is each node's own. While the walk recurses, a child's text is
 * wrapped in two tokens carrying its node id and a random key of this extraction (a document cannot
 * forge them); the parent's format composes its text around them as it likes. At the end the
 * tokens are taken out, leaving each node's span of the text — start and end, so text a container
 * adds after its children is the container's own, not its last child's.
 */
import { randomBytes } from "node:crypto";

/** One node's text: [start, end) in the content; a child's span lies inside its parent's. */
export interface TextSpan {
  node: number;
  start: number;
  end: number;
}

/** Unicode noncharacters: no text is meant to carry them. */
const OPEN = "\uFDD0";
const CLOSE = "\uFDD1";
/** A whole token, or what is left of one cut by a text limit (removed). */
const TOKEN = /\uFDD0([0-9a-f]{0,8})(?:([oc])(\d{1,10}))?(\uFDD1)?/g;

export class TextMarks {
  readonly #key = randomBytes(4).toString("hex");

  /** `text` wrapped as node `id`'s; blank text is left as it is (formats skip it). */
  wrap(id: number, text: string): string {
    if (!text.trim()) return text;
    return `${OPEN}${this.#key}o${id}${CLOSE}${text}${OPEN}${this.#key}c${id}${CLOSE}`;
  }

  /**
   * The text without its tokens, and each node's span in it. A node whose closing token was cut
   * off by a text limit ends where the text does.
   */
  unwrap(marked: string): { text: string; spans: TextSpan[] } {
    const spans: TextSpan[] = [];
    const open = new Map<number, TextSpan>();
    let text = "";
    let from = 0;
    for (const m of marked.matchAll(TOKEN)) {
      text += marked.slice(from, m.index);
      from = m.index + m[0].length;
      if (m[1] !== this.#key || !m[2] || !m[4]) continue; // a fragment, or not ours
      const node = Number(m[3]);
      if (m[2] === "o") {
        const span = { node, start: text.length, end: -1 };
        open.set(node, span);
        spans.push(span);
      } else {
        const span = open.get(node);
        if (span) span.end = text.length;
        open.delete(node);
      }
    }
    text += marked.slice(from);
    for (const span of open.values()) span.end = text.length;
    return { text, spans: spans.filter((s) => s.end > s.start) };
  }
}

/**
 * The spans of `raw` carried over to `normalised`, a copy of it whose whitespace was rewritten:
 * normalisation keeps every other character in order, so the k-th non-space character of one is
 * the k-th of the other. A span is moved to its first and last non-space characters; a span of
 * spaces alone is dropped.
 */
export function carrySpans(raw: string, normalised: string, spans: TextSpan[]): TextSpan[] {
  const rawBoundaries = spans.flatMap((s) => [s.start, s.end]);
  const counts = nonSpaceCounts(raw, rawBoundaries);
  const wanted: number[] = [];
  const kept = spans.flatMap((s) => {
    const first = counts.get(s.start) as number;
    const after = counts.get(s.end) as number;
    if (after <= first) return [];
    wanted.push(first, after - 1);
    return [{ node: s.node, first, last: after - 1 }];
  });
  const at = nonSpacePositions(normalised, wanted);
  return kept.map((s) => ({
    node: s.node,
    start: at.get(s.first) as number,
    end: (at.get(s.last) as number) + 1,
  }));
}

const SPACE = /\s/;

/** JavaScript's whitespace (what `trim` and `\s` take), printable ASCII answered without a regex. */
function isSpace(code: number): boolean {
  if (code > 32 && code < 127) return false;
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  return SPACE.test(String.fromCharCode(code));
}

/** For each offset, how many non-space characters come before it (one pass). */
function nonSpaceCounts(text: string, offsets: number[]): Map<number, number> {
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  const out = new Map<number, number>();
  let count = 0;
  let i = 0;
  for (const offset of sorted) {
    for (; i < offset && i < text.length; i++) if (!isSpace(text.charCodeAt(i))) count++;
    out.set(offset, count);
  }
  return out;
}

/** For each k, the offset of the k-th non-space character (one pass). */
function nonSpacePositions(text: string, ks: number[]): Map<number, number> {
  const sorted = [...new Set(ks)].sort((a, b) => a - b);
  const out = new Map<number, number>();
  let k = -1;
  let i = 0;
  for (const wanted of sorted) {
    for (; i < text.length && k < wanted; i++) if (!isSpace(text.charCodeAt(i))) k++;
    out.set(wanted, k === wanted ? i - 1 : text.length);
  }
  return out;
}

/** The spans cut at `length` (the content's limit). */
export function clipSpans(spans: TextSpan[], length: number): TextSpan[] {
  return spans.map((s) => ({ ...s, end: Math.min(s.end, length) })).filter((s) => s.start < s.end);
}
