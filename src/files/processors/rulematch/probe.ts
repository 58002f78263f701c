/**
 * The meta probe: the caller's source with every rule's condition replaced by `true` (`true or
 * any of them` where the rule has strings, so no pattern goes unused). Scanned once by the
 * WebAssembly build on an empty input, it reports every rule with its meta, tags and patterns
 * exactly as that build types them — the WebAssembly binding has no other way to list rules,
 * and the native binding returns boolean and byte-string meta as "unknown". Its matches are never
 * an answer: only the catalogue of rules is read from it. Pure; linear in the source.
 */
import { isSpace, isWord, isWordStart, skipBlockComment, skipDelimited, skipLineComment } from "./limits.ts";

type Prev = "assign" | "matches" | "other";

/** Each rule's pattern identifiers in declaration order, read from its strings section. */
export type DeclaredPatterns = Record<string, { identifiers: string[]; anyPrivate: boolean }>;

export interface MetaProbe {
  source: string;
  patterns: DeclaredPatterns;
}

/** The tokenizer's state while it walks the source. */
interface Walk {
  depth: number;
  prev: Prev;
  hasStrings: boolean;
  /** Inside a strings section (from `strings:` to `condition:`). */
  inStrings: boolean;
  /** The next word names a rule. */
  expectName: boolean;
  rule: { identifiers: string[]; anyPrivate: boolean };
  patterns: DeclaredPatterns;
  /** Where the current rule's condition text starts (after `condition:`), or -1. */
  conditionAt: number;
  out: string[];
  copied: number;
}

/** The probe source and declared patterns, or undefined when the source does not have the shape expected. */
export function metaProbe(source: string): MetaProbe | undefined {
  const w: Walk = {
    depth: 0,
    prev: "other",
    hasStrings: false,
    inStrings: false,
    expectName: false,
    rule: { identifiers: [], anyPrivate: false },
    patterns: {},
    conditionAt: -1,
    out: [],
    copied: 0,
  };
  let i = 0;
  while (i < source.length) i = step(source, i, w);
  if (w.conditionAt !== -1 || w.depth !== 0) return undefined;
  w.out.push(source.slice(w.copied));
  return { source: w.out.join(""), patterns: w.patterns };
}

/** Reads one token at `i`; returns the index after it. */
function step(source: string, i: number, w: Walk): number {
  const code = source.charCodeAt(i);
  const ch = source[i] ?? "";
  const next = source[i + 1];
  if (isSpace(code)) return i + 1;
  if (ch === "/" && next === "/") return skipLineComment(source, i);
  if (ch === "/" && next === "*") return skipBlockComment(source, i);
  if (ch === '"') return literal(skipDelimited(source, i + 1, '"'), w);
  if (ch === "/" && (w.prev === "assign" || w.prev === "matches")) {
    let end = skipDelimited(source, i + 1, "/");
    while (end < source.length && isWord(source.charCodeAt(end))) end++; // flags: /…/is
    return literal(end, w);
  }
  if (ch === "{" && w.prev === "assign") return literal(skipDelimited(source, i + 1, "}"), w);
  w.prev = "other";
  if (ch === "(" || ch === "[" || ch === "{") w.depth++;
  else if (ch === ")" || ch === "]" || ch === "}") closeBracket(source, i, w);
  else if (ch === "=" && !"=~".includes(next ?? "") && !"=!<>".includes(source[i - 1] ?? ""))
    w.prev = "assign";
  else if (isWordStart(code)) return word(source, i, w);
  return i + 1;
}

function literal(end: number, w: Walk): number {
  w.prev = "other";
  return end;
}

/** A closing bracket that ends a rule ends its condition: its text is replaced, the `}` kept. */
function closeBracket(source: string, i: number, w: Walk): void {
  w.depth--;
  if (w.depth !== 0 || w.conditionAt === -1) return;
  w.out.push(source.slice(w.copied, w.conditionAt), ` ${w.hasStrings ? "true or any of them" : "true"}\n`);
  w.copied = i;
  w.conditionAt = -1;
}

function word(source: string, i: number, w: Walk): number {
  let end = i + 1;
  while (end < source.length && isWord(source.charCodeAt(end))) end++;
  const name = source.slice(i, end);
  const after = nextToken(source, end);
  if (name === "matches") w.prev = "matches";
  else if (w.expectName) newRule(name, w);
  else if (name === "rule" && w.depth === 0) w.expectName = true;
  else if (w.depth === 1 && w.inStrings)
    declared(name, source[after] === "=" && source[after + 1] !== "=", w);
  if (w.depth === 1 && (name === "strings" || name === "condition") && source[after] === ":") {
    w.hasStrings ||= name === "strings";
    w.inStrings = name === "strings";
    if (name === "condition") w.conditionAt = after + 1;
    return after + 1;
  }
  return end;
}

/** Where the next non-space character is. */
function nextToken(source: string, from: number): number {
  let i = from;
  while (isSpace(source.charCodeAt(i))) i++;
  return i;
}

function newRule(name: string, w: Walk): void {
  w.expectName = false;
  w.hasStrings = false;
  w.inStrings = false;
  w.rule = { identifiers: [], anyPrivate: false };
  w.patterns[name] = w.rule;
}

/** A word of a strings section: `$name =` declares a pattern, `private` marks one private. */
function declared(name: string, isDefinition: boolean, w: Walk): void {
  if (name.startsWith("$") && isDefinition) w.rule.identifiers.push(name);
  else if (name === "private") w.rule.anyPrivate = true;
}
