/**
 * Indicators out of text: refang, cut the text into tokens, classify each, de-duplicate. Linear in
 * the text scanned, which is capped, as is the number of indicators kept (the result says which cap
 * was hit).
 */
import { type Candidate, type ClassifyMode, classify, mayHold } from "./classify.ts";
import { PHONE, VERSION_BEFORE, VERSION_KEY } from "./patterns.ts";
import { type Refanged, refang } from "./refang.ts";
import { tokensOf } from "./tokens.ts";
import { type Indicator, type IocOptions, type IocResult, TAXONOMY_TYPE, type TextPart } from "./types.ts";
import { phone } from "./validate.ts";

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

/** Repeated tokens (the same URL a thousand times) are classified once (by where they were defanged). */
class ClassifyCache {
  private readonly seen = new Map<string, Candidate[]>();
  private readonly mode: ClassifyMode;
  constructor(mode: ClassifyMode) {
    this.mode = mode;
  }
  classify(token: string, defangs: number[] = []): Candidate[] {
    const key = defangs.length ? `${defangs.join(",")}\u0000${token}` : token;
    const known = this.seen.get(key);
    if (known) return known;
    const found = classify(token, { ...this.mode, defangs });
    if (this.seen.size >= CACHE_SIZE) this.seen.clear();
    this.seen.set(key, found);
    return found;
  }
}
const CACHE_SIZE = 10_000;

function scanPart(part: TextPart, options: IocOptions, collector: Collector) {
  const r = refang(part.text);
  const text = r.text;
  const cache = new ClassifyCache({ includePrivate: options.includePrivate ?? false, names: part.names });
  // A field named for a version ("GPSVersionID", "FileVersion") holds no addresses.
  const versionField = VERSION_KEY.test(part.part);
  const standsAlone = (t: string) =>
    t.length <= options.maxTokenChars && mayHold(t) && cache.classify(t).length > 0;
  for (const { start, token, breaks } of tokensOf(text, options.maxTokenChars, standsAlone)) {
    if (collector.full) break;
    if (token.length > options.maxTokenChars || !mayHold(token)) continue;
    const defangs = r.changed
      ? inToken(r.defangsIn(start, start + token.length + breaks.length), start, breaks)
      : [];
    for (const found of cache.classify(token, defangs)) {
      // Back to text offsets: each line break joined before a position shifts it by one.
      const shift = (i: number) => i + breaks.filter((b) => b <= i).length;
      const c = { ...found, start: shift(found.start), end: shift(found.end) };
      if (
        c.kind === "ipv4" &&
        (versionField || VERSION_BEFORE.test(text.slice(Math.max(0, start + c.start - 16), start + c.start)))
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

/** Text offsets as offsets in a token that starts at `start` and had line breaks removed at `breaks`. */
function inToken(spans: number[], start: number, breaks: number[]): number[] {
  return spans.map((t) => {
    const i = t - start;
    return i - breaks.filter((b, k) => b + k < i).length;
  });
}

function record(c: Candidate, tokenStart: number, r: Refanged, part: TextPart, collector: Collector) {
  const from = tokenStart + c.start;
  collector.add(c, part, r.original(from), r.touchesDefang(from, tokenStart + c.end));
}
