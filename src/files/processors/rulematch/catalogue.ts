/**
 * What the WebAssembly build says about each reportable rule of a source, read from its scan of
 * the meta probe (probe.ts): tags and typed meta; with the pattern identifiers in declaration
 * order that the probe read from the source (the build lists only patterns that matched). The
 * native engine's answers are completed from it, so meta types and string order stay the
 * WebAssembly build's. Pure.
 */
import type { MatchInstance, RuleMatch, YaraXScanResult } from "./matches.ts";
import { metaOf } from "./matches.ts";
import type { DeclaredPatterns } from "./probe.ts";

export interface CatalogueRule {
  /** Where the WebAssembly build lists the rule (its declaration order). */
  index: number;
  tags: string[];
  meta: RuleMatch["meta"];
  /** Pattern identifiers in declaration order. */
  patterns: string[];
  /** Two patterns share an identifier (anonymous `$`) or one is private: a flat native match list cannot be split back. */
  ambiguous: boolean;
}

/** Reportable (non-private) rules by identifier; every rule of a source is in the default namespace. */
export type RuleCatalogue = Record<string, CatalogueRule>;

/** The catalogue from the WebAssembly build's scan of the probe and the patterns the probe read. */
export function catalogueOf(probe: YaraXScanResult, declared: DeclaredPatterns): RuleCatalogue | undefined {
  const catalogue: RuleCatalogue = {};
  for (const rule of probe.matches ?? []) {
    if (rule.isPrivate === true) continue;
    const patterns = Object.hasOwn(declared, rule.identifier) ? declared[rule.identifier] : undefined;
    if (!patterns) return undefined;
    const { identifiers, anyPrivate } = patterns;
    catalogue[rule.identifier] = {
      index: Object.keys(catalogue).length,
      tags: [...rule.tags],
      meta: metaOf(rule),
      patterns: identifiers,
      ambiguous: anyPrivate || new Set(identifiers).size < identifiers.length,
    };
  }
  return catalogue;
}

/** One rule as the native engine's child reports it: strings grouped by identifier. */
export interface NativeRule {
  rule: string;
  namespace: string;
  tags: string[];
  strings: Array<{ identifier: string; instances: MatchInstance[] }>;
}

/**
 * The native rules as Loupe's matches, with the catalogue's meta and string order; undefined when
 * a rule is missing from the catalogue, disagrees with it, or cannot be split back per pattern
 * (the WebAssembly build then answers).
 */
export function completeNativeMatches(
  rules: NativeRule[],
  catalogue: RuleCatalogue,
): RuleMatch[] | undefined {
  const out: Array<RuleMatch & { index: number }> = [];
  for (const native of rules) {
    const known = Object.hasOwn(catalogue, native.rule) ? catalogue[native.rule] : undefined;
    if (!known || known.ambiguous || native.namespace !== "default") return undefined;
    if (known.tags.join("\0") !== native.tags.join("\0")) return undefined;
    const order = (identifier: string) => known.patterns.indexOf(identifier);
    if (native.strings.some((s) => order(s.identifier) === -1)) return undefined;
    out.push({
      index: known.index,
      rule: native.rule,
      tags: known.tags,
      namespace: native.namespace,
      meta: known.meta,
      strings: [...native.strings].sort((a, b) => order(a.identifier) - order(b.identifier)),
    });
  }
  return out.sort((a, b) => a.index - b.index).map(({ index: _, ...match }) => match);
}
