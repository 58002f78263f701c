/**
 * Runs in a sandbox process (never in the server or a worker thread: a fault of native code ends
 * the process): compiles an already validated YARA source with the native YARA-X binding (binding.ts; the
 * last few rule sets kept, keyed by the source's hash), scans the file's bytes (read whole:
 * the binding's scanFile took 3–4× longer on 20 MB) and returns the
 * non-private matching rules with their strings grouped by identifier. A source the native build
 * refuses is reported, not thrown: the WebAssembly build answers for it.
 */

import { Lru } from "../../../../common/lru.ts";
import type { NativeRule } from "../catalogue.ts";
import { inputBytes, type ScanInput } from "../input.ts";
import { type MatchInstance, plaintextOf } from "../matches.ts";
import { loadBinding, type NativeMatch, type NativeRules } from "./binding.ts";

// Loaded at start: a platform without the package fails here, before the process says it is ready.
const { compile } = loadBinding();

export interface NativeTask {
  rules: string;
  /** sha256 of `rules`, computed by the server. */
  key: string;
  input: ScanInput;
  cacheSize: number;
  maxMatchesPerString: number;
  plaintextMax: number;
}

export type NativeResult =
  | { ok: true; rules: NativeRule[]; compiledNow: boolean; compileMs: number; scanMs: number }
  | { ok: false; refused: string };

const cache = new Lru<NativeRules>();

function compiled(task: NativeTask): { rules: NativeRules; compiledNow: boolean; ms: number } {
  const hit = cache.get(task.key);
  if (hit) return { rules: hit, compiledNow: false, ms: 0 };
  const started = performance.now();
  const rules = compile(task.rules, { enableIncludes: false });
  // Set once per rule set: the binding rebuilds its cached scanner on each call (0.5 ms).
  rules.setMaxMatchesPerPattern(task.maxMatchesPerString);
  cache.set(task.key, rules, task.cacheSize);
  return { rules, compiledNow: true, ms: performance.now() - started };
}

function grouped(hits: NativeMatch[], data: Buffer, plaintextMax: number): NativeRule["strings"] {
  const byIdentifier = new Map<string, MatchInstance[]>();
  for (const hit of hits) {
    const instances = byIdentifier.get(hit.identifier) ?? [];
    instances.push({
      offset: hit.offset,
      matched_length: hit.length,
      plaintext: plaintextOf(data.subarray(hit.offset, hit.offset + hit.length), plaintextMax),
    });
    byIdentifier.set(hit.identifier, instances);
  }
  return [...byIdentifier].map(([identifier, instances]) => ({ identifier, instances }));
}

export default function run(task: NativeTask): NativeResult {
  let c: ReturnType<typeof compiled>;
  try {
    c = compiled(task);
  } catch (err) {
    return { ok: false, refused: err instanceof Error ? err.message : String(err) };
  }
  const data = inputBytes(task.input);
  const started = performance.now();
  const found = c.rules.scan(data);
  const scanMs = performance.now() - started;
  const rules = found.map((m) => ({
    rule: m.ruleIdentifier,
    namespace: m.namespace,
    tags: m.tags,
    strings: grouped(m.matches, data, task.plaintextMax),
  }));
  return { ok: true, rules, compiledNow: c.compiledNow, compileMs: c.ms, scanMs };
}
