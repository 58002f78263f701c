/**
 * Indicators out of text: refang, cut the text into tokens, classify each, de-duplicate. Linear in
 * the text scanned, which is capped, as is the number of indicators kept (the result says which cap
 * was hit). Windows paths and registry keys may hold single spaces ("Program Files"): a token that
 * starts one takes the next tokens while they go on with a backslash.
 */
import { type Candidate, classify, mayHold } from "./classify.ts";
import { PHONE, TOKEN, VERSION_BEFORE } from "./patterns.ts";
import { type Refanged, refang } from "./refang.ts";
import { type Indicator, type IocOptions, type IocResult, TAXONOMY_TYPE, type TextPart } from "./types.ts";
import { phone } from "./validate.ts";

const STARTS_WINDOWS = /^(?:[a-z]:\\|%[a-z_]{1,40}%\\|HKEY_|HK(?:LM|CU|CR|U|CC)\\)/i;

class Collector {
  readonly found = new Map<string, Indicator>();
  full = false;
  private readonly options: IocOptions;
  constructor(options: IocOptions) {
    this.options = options;
  }

  add(c: Candidate, part: TextPart, offset: number, defanged: boolean) {
    const key = `${c.kind}\u0000${c.value}`;
    const known = this.found.get(key);
    const location = { part: part.part, page: part.page ?? null, offset: (part.offset ?? 0) + offset };
    if (known) {
      known.occurrences++;
      known.defanged ||= defanged;
      if (known.locations.length < this.options.maxLocations) known.locations.push(location);
      return;
    }
    if (this.found.size >= this.options.maxIndicators) {
      this.full = true;
      return;
    }
    this.found.set(key, {
      super_type: "OBSERVABLE",
      type: TAXONOMY_TYPE[c.kind],
      kind: c.kind,
      value: c.value,
      defanged,
      occurrences: 1,
      locations: this.options.maxLocations > 0 ? [location] : [],
    });
  }
}

export function extractIocs(parts: TextPart[], options: IocOptions): IocResult {
  const collector = new Collector(options);
  let budget = options.maxChars;
  let cut = false;
  for (const part of parts) {
    if (collector.full || budget <= 0) break;
    const text = part.text.length > budget ? part.text.slice(0, budget) : part.text;
    cut ||= text.length < part.text.length;
    budget -= text.length;
    scanPart({ ...part, text }, options, collector);
  }
  return {
    indicators: [...collector.found.values()],
    truncated: collector.full ? "max_indicators" : cut ? "max_chars" : null,
    scanned_chars: options.maxChars - Math.max(budget, 0),
  };
}

/** Repeated tokens (the same URL a thousand times) are classified once. */
class ClassifyCache {
  private readonly seen = new Map<string, Candidate[]>();
  private readonly includePrivate: boolean;
  constructor(includePrivate: boolean) {
    this.includePrivate = includePrivate;
  }
  classify(token: string): Candidate[] {
    const known = this.seen.get(token);
    if (known) return known;
    const found = classify(token, this.includePrivate);
    if (this.seen.size >= CACHE_SIZE) this.seen.clear();
    this.seen.set(token, found);
    return found;
  }
}
const CACHE_SIZE = 10_000;

/** Words a Windows path or registry key may take after a space before its next backslash. */
const PATH_LOOKAHEAD = 3;

function scanPart(part: TextPart, options: IocOptions, collector: Collector) {
  const r = refang(part.text);
  const text = r.text;
  const tokens = new RegExp(TOKEN.source, "g");
  const pending: RegExpExecArray[] = [];
  const cache = new ClassifyCache(options.includePrivate ?? false);
  const next = () => pending.shift() ?? tokens.exec(text);
  let m = next();
  while (m && !collector.full) {
    const start = m.index;
    let token = m[0];
    if (STARTS_WINDOWS.test(token))
      token = joinPath(token, start, text, tokens, pending, options.maxTokenChars);
    m = next();
    if (token.length > options.maxTokenChars || !mayHold(token)) continue;
    for (const c of cache.classify(token)) {
      if (
        c.kind === "ipv4" &&
        VERSION_BEFORE.test(text.slice(Math.max(0, start + c.start - 16), start + c.start))
      )
        continue;
      record(c, start, r, part, collector);
    }
  }
  for (const p of text.matchAll(PHONE)) {
    if (collector.full) break;
    if (/[\w+]/.test(text[p.index - 1] ?? "")) continue;
    const value = phone(p[0]);
    if (value) record({ kind: "phone", value, start: 0, end: p[0].length }, p.index, r, part, collector);
  }
}

/** Joins "C:\Program" + "Files" + "(x86)\App\a.exe" across single spaces; unused look-ahead goes back to `pending`. */
function joinPath(
  first: string,
  start: number,
  text: string,
  tokens: RegExp,
  pending: RegExpExecArray[],
  maxChars: number,
): string {
  let end = start + first.length;
  for (;;) {
    let reach = end;
    const ahead: RegExpExecArray[] = [];
    let joined = false;
    while (ahead.length < PATH_LOOKAHEAD && reach - start <= maxChars) {
      const t = pending.shift() ?? tokens.exec(text);
      if (!t) break;
      ahead.push(t);
      if (t.index !== reach + 1 || text[reach] !== " " || STARTS_WINDOWS.test(t[0])) break;
      reach = t.index + t[0].length;
      if (continuesPath(t[0])) {
        end = reach;
        joined = true;
        ahead.length = 0;
        break;
      }
    }
    pending.unshift(...ahead);
    if (!joined) return text.slice(start, end);
  }
}

function continuesPath(next: string): boolean {
  const slash = next.indexOf("\\");
  return slash >= 0 && !STARTS_WINDOWS.test(next) && !/[:/]/.test(next.slice(0, slash));
}

function record(c: Candidate, tokenStart: number, r: Refanged, part: TextPart, collector: Collector) {
  const from = tokenStart + c.start;
  collector.add(c, part, r.original(from), r.touchesDefang(from, tokenStart + c.end));
}
