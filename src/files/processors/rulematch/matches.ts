/**
 * Turns YARA-X scan results into Loupe's (Mandolin's) match shape. Pure. Private rules are left
 * out: YARA-X lists every rule that matched, and a private rule is by definition never reported.
 */

export interface MatchInstance {
  offset: number;
  matched_length: number;
  plaintext: string;
}

export interface RuleMatch {
  rule: string;
  tags: string[];
  namespace: string;
  meta: Record<string, string | number | boolean>;
  strings: Array<{ identifier: string; instances: MatchInstance[] }>;
}

/** The parts of a YARA-X scan result that we read. */
export interface YaraXScanResult {
  matches?: Array<{
    identifier: string;
    namespace: string;
    isPrivate?: boolean;
    tags: string[];
    metadata: Array<{ identifier: string; value: unknown }>;
    patterns: Array<{
      identifier: string;
      isPrivate?: boolean;
      matches: Array<{ offset: number; length: number }>;
    }>;
  }>;
}

/** Printable ASCII stays as is (backslash doubled); every other byte is written \xNN; cut at `maxBytes`. */
export function plaintextOf(bytes: Uint8Array, maxBytes: number): string {
  let out = "";
  const end = Math.min(bytes.length, maxBytes);
  for (let i = 0; i < end; i++) {
    const b = bytes[i] ?? 0;
    if (b === 0x5c) out += "\\\\";
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return bytes.length > maxBytes ? `${out}…` : out;
}

type YaraXRule = NonNullable<YaraXScanResult["matches"]>[number];

/** A rule's meta as Loupe reports it (byte strings as YARA-X's binding hands them over). */
export function metaOf(rule: YaraXRule): RuleMatch["meta"] {
  return Object.fromEntries(rule.metadata.map((e) => [e.identifier, metaValue(e.value)]));
}

function metaValue(value: unknown): string | number | boolean {
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "string") return value;
  if (value instanceof Uint8Array) return plaintextOf(value, 4096);
  return String(value);
}

export function toRuleMatches(result: YaraXScanResult, data: Uint8Array, plaintextMax: number): RuleMatch[] {
  return (result.matches ?? [])
    .filter((m) => m.isPrivate !== true)
    .map((m) => ({
      rule: m.identifier,
      tags: [...m.tags],
      namespace: m.namespace,
      meta: metaOf(m),
      strings: m.patterns
        .filter((p) => p.matches.length > 0)
        .map((p) => ({
          identifier: p.identifier,
          instances: p.matches.map((hit) => ({
            offset: hit.offset,
            matched_length: hit.length,
            plaintext: plaintextOf(data.subarray(hit.offset, hit.offset + hit.length), plaintextMax),
          })),
        })),
    }));
}
