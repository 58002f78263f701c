/**
 * Bounds a YARA source before YARA-X sees it: one linear pass over the text (skipping strings,
 * comments, regexes and hex patterns as tokens) counts nesting, rules, strings and imports.
 * Nesting counts brackets, chains of unary operators (`not not …`, `- - …`) and chains of binary
 * operators (`1 + 1 - 1 …`): all recurse in the compiler, whose WebAssembly stack overflows into
 * its own memory long before V8 notices. `and`/`or` end a chain: YARA-X keeps those flat.
 */

export interface RuleLimits {
  maxBytes: number;
  maxDepth: number;
  maxRules: number;
  maxStrings: number;
  maxPatternBytes: number;
  maxAlternatives: number;
  /** Modules a rule may import. */
  modules: ReadonlySet<string>;
  /** Refuse loops YARA-X warns iterate too many times (checked after compiling, in the worker). */
  refuseLargeLoops?: boolean;
}

export interface RuleRefusal {
  code: "rules_too_large" | "rules_too_complex" | "module_not_allowed";
  detail: string;
}

type Prev = "operand" | "operator" | "assign" | "matches" | "import";

// Character classes by code (the scan runs on the event loop: no regex or string per character).
const WORD_CHARS = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
  WORD_CHARS[ch.charCodeAt(0)] = 1;
export const isWord = (code: number) => code < 128 && WORD_CHARS[code] === 1;
const isDigit = (code: number) => code >= 48 && code <= 57;
export const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;
export const isWordStart = (code: number) =>
  (isWord(code) && !isDigit(code)) || "$#@!".includes(String.fromCharCode(code));
const UNARY_WORDS = new Set(["not", "defined"]);
/** Words and marks that end an operand chain: the parser starts a new expression after them. */
const CHAIN_ENDS = new Set(["and", "or", "of", "in", "at", "for", "all", "any", "none", "them"]);
/** Symbols of binary operators (their second character, as in `<<` or `==`, follows an operator). */
const BINARY_MARKS = new Set("+-*\\%&|^<>=!");

class Refused extends Error {
  readonly refusal: RuleRefusal;
  constructor(refusal: RuleRefusal) {
    super(refusal.detail);
    this.refusal = refusal;
  }
}

const tooComplex = (detail: string) => new Refused({ code: "rules_too_complex", detail });

/** Where `index` is, as "line N" for messages. */
function lineOf(source: string, index: number): string {
  let line = 1;
  for (let i = 0; i < index; i++) if (source.charCodeAt(i) === 10) line++;
  return `line ${line}`;
}

/** Reads a literal ending at an unescaped `close`; returns the index after it. */
export function skipDelimited(source: string, start: number, close: string): number {
  let i = start;
  while (i < source.length) {
    const ch = source[i];
    if (ch === "\\") i += 2;
    else if (ch === close) return i + 1;
    else if (ch === "\n" && close !== "}") return i;
    else i++;
  }
  return i;
}

/** Checks one regex or hex pattern body (`source[start, end)`): length, alternatives and group nesting. */
function checkPattern(source: string, start: number, end: number, limits: RuleLimits): void {
  const body = source.slice(start, end);
  const at = () => lineOf(source, start);
  if (body.length > limits.maxPatternBytes) {
    throw tooComplex(
      `A pattern at ${at()} is ${body.length} bytes long; the limit is ${limits.maxPatternBytes} (FILES_RULES_MAX_PATTERN_BYTES).`,
    );
  }
  let alternatives = 0;
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\") i++;
    else if (inClass) inClass = ch !== "]";
    else if (ch === "[")
      inClass = true; // a hex jump `[2-4]` is skipped the same way
    else if (ch === "|") alternatives++;
    else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    if (depth > limits.maxDepth) {
      throw tooComplex(
        `A pattern at ${at()} nests groups deeper than ${limits.maxDepth} (FILES_RULES_MAX_DEPTH).`,
      );
    }
  }
  if (alternatives > limits.maxAlternatives) {
    throw tooComplex(
      `A pattern at ${at()} has ${alternatives} alternatives; the limit is ${limits.maxAlternatives} (FILES_RULES_MAX_ALTERNATIVES).`,
    );
  }
}

/** The scanner's running counts. */
class Counts {
  depth = 0;
  unaryRun = 0;
  /** Binary operators in the chain at this bracket level, and in all chains enclosing it. */
  chain = 0;
  chains = 0;
  readonly #outer: number[] = [];
  rules = 0;
  strings = 0;
  prev: Prev = "operator";
  private readonly source: string;
  private readonly limits: RuleLimits;
  constructor(source: string, limits: RuleLimits) {
    this.source = source;
    this.limits = limits;
  }

  nest(index: number): void {
    if (this.depth + this.unaryRun + this.chains > this.limits.maxDepth) {
      throw tooComplex(
        `The rules nest deeper than ${this.limits.maxDepth} levels at ${lineOf(this.source, index)}, ` +
          "counting brackets, chained unary operators and chains of binary operators (FILES_RULES_MAX_DEPTH).",
      );
    }
  }

  open(index: number): void {
    this.depth++;
    this.#outer.push(this.chain);
    this.chain = 0;
    this.nest(index);
    this.prev = "operator";
  }

  close(): void {
    this.depth = Math.max(0, this.depth - 1);
    this.endChain();
    this.chain = this.#outer.pop() ?? 0;
    this.operand();
  }

  /** A binary operator after an operand: one more level in the compiler's tree. */
  binary(index: number): void {
    this.chain++;
    this.chains++;
    this.nest(index);
  }

  endChain(): void {
    this.chains -= this.chain;
    this.chain = 0;
  }

  operand(): void {
    this.prev = "operand";
    this.unaryRun = 0;
  }

  /** The word `source[start, end)`: only keywords (7 characters at most) and `$name` are looked at. */
  word(start: number, end: number): void {
    if (this.source.charCodeAt(start) === 36 /* $ */) {
      if (isDefinition(this.source, end) && ++this.strings > this.limits.maxStrings) {
        throw tooComplex(`More than ${this.limits.maxStrings} strings (FILES_RULES_MAX_STRINGS).`);
      }
      this.operand();
      return;
    }
    if (end - start > 7) {
      this.operand();
      return;
    }
    const word = this.source.slice(start, end);
    if (word === "rule" && ++this.rules > this.limits.maxRules) {
      throw tooComplex(`More than ${this.limits.maxRules} rules (FILES_RULES_MAX_RULES).`);
    }
    if (CHAIN_ENDS.has(word)) this.endChain();
    if (UNARY_WORDS.has(word)) {
      this.unaryRun++;
      this.prev = "operator";
    } else if (word === "import" || word === "matches") {
      this.prev = word;
      this.unaryRun = 0;
    } else this.operand();
  }
}

/** `$name =` (a string definition), not `$name ==`. */
function isDefinition(source: string, from: number): boolean {
  let i = from;
  while (isSpace(source.charCodeAt(i))) i++;
  return source[i] === "=" && source[i + 1] !== "=";
}

/** Scans the source; throws Refused at the first bound passed. */
function scan(source: string, limits: RuleLimits): void {
  const c = new Counts(source, limits);
  let i = 0;
  while (i < source.length) {
    const code = source.charCodeAt(i);
    if (isSpace(code)) {
      i++;
      continue;
    }
    const ch = source[i] ?? "";
    const next = source[i + 1];
    if (ch === "/" && next === "/") i = skipLineComment(source, i);
    else if (ch === "/" && next === "*") i = skipBlockComment(source, i);
    else if (ch === '"') i = literal(source, i, c, limits);
    else if (ch === "/" && (c.prev === "assign" || c.prev === "matches")) {
      const end = skipDelimited(source, i + 1, "/");
      checkPattern(source, i + 1, end - 1, limits);
      i = end;
      while (i < source.length && isWord(source.charCodeAt(i))) i++; // flags: /…/is
      c.operand();
    } else if (ch === "{" && c.prev === "assign") {
      const end = skipDelimited(source, i + 1, "}");
      checkPattern(source, i + 1, end - 1, limits);
      i = end;
      c.operand();
    } else if (ch === "(" || ch === "[" || ch === "{") {
      c.open(i);
      i++;
    } else if (ch === ")" || ch === "]" || ch === "}") {
      c.close();
      i++;
    } else if (isWordStart(code) && !(ch === "!" && next === "=")) {
      let end = i + 1;
      while (end < source.length && isWord(source.charCodeAt(end))) end++;
      c.word(i, end);
      c.nest(i);
      i = end;
    } else if ((ch === "-" || ch === "~") && c.prev !== "operand") {
      c.unaryRun++;
      c.nest(i);
      i++;
    } else i = operator(source, i, c);
  }
}

function operator(source: string, i: number, c: Counts): number {
  const ch = source[i];
  const pair = source.slice(i, i + 2);
  if (ch === "=" && !["==", "=~"].includes(pair) && !"=!<>".includes(source[i - 1] ?? "")) {
    c.prev = "assign";
    c.unaryRun = 0;
    return i + 1;
  }
  if (isDigit(source.charCodeAt(i))) {
    // Numbers, including 0x1F, 10KB, 1.5: one operand.
    let end = i + 1;
    while (end < source.length && (isWord(source.charCodeAt(end)) || source[end] === ".")) end++;
    c.operand();
    return end;
  }
  if (ch === "," || ch === ":") c.endChain();
  else if (c.prev === "operand" && BINARY_MARKS.has(ch ?? "")) c.binary(i);
  c.prev = "operator";
  c.unaryRun = 0;
  return i + 1;
}

function literal(source: string, i: number, c: Counts, limits: RuleLimits): number {
  const end = skipDelimited(source, i + 1, '"');
  if (c.prev === "import") {
    const name = source.slice(i + 1, end - 1);
    if (!limits.modules.has(name)) {
      throw new Refused({
        code: "module_not_allowed",
        detail: `The module "${name}" imported at ${lineOf(source, i)} is not allowed here; allowed: ${[...limits.modules].join(", ") || "none"} (FILES_RULES_MODULES).`,
      });
    }
  }
  c.operand();
  return end;
}

export function skipLineComment(source: string, i: number): number {
  const end = source.indexOf("\n", i);
  return end === -1 ? source.length : end + 1;
}

export function skipBlockComment(source: string, i: number): number {
  const end = source.indexOf("*/", i + 2);
  return end === -1 ? source.length : end + 2;
}

/** The first bound the source passes, or undefined when it may be compiled. Linear in its length. */
export function checkRules(source: string, limits: RuleLimits): RuleRefusal | undefined {
  const bytes = Buffer.byteLength(source);
  if (bytes > limits.maxBytes) {
    return {
      code: "rules_too_large",
      detail: `The rules are ${bytes} bytes; the limit is ${limits.maxBytes} (FILES_RULES_MAX_BYTES).`,
    };
  }
  try {
    scan(source, limits);
    return undefined;
  } catch (err) {
    if (err instanceof Refused) return err.refusal;
    throw err;
  }
}
