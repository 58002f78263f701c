/**
 * Runs in a worker thread (piscina): compiles YARA sources with YARA-X (keeping the last few
 * compiled rule sets, keyed by the source's hash) and scans one file. A runaway task is ended
 * by the pool, which terminates this thread.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Compiler, initSync, type Rules } from "@virustotal/yara-x";
import { type RuleMatch, toRuleMatches, type YaraXScanResult } from "./matches.ts";

// The package is built for browsers; in Node the WebAssembly module is read from beside its entry point.
initSync({ module: readFileSync(new URL("yara_x_js_bg.wasm", import.meta.resolve("@virustotal/yara-x"))) });

export interface ScanTask {
  kind: "scan";
  rules: string;
  path: string;
  cacheSize: number;
  maxMatchesPerString: number;
  plaintextMax: number;
}

export interface CompileTask {
  kind: "compile";
  rules: string;
  cacheSize: number;
}

export type TaskResult =
  | {
      ok: true;
      matches: RuleMatch[];
      warnings: string[];
      compiledNow: boolean;
      compileMs: number;
      scanMs: number;
    }
  | { ok: false; error: "invalid_rules"; message: string };

interface Compiled {
  rules: Rules;
  warnings: string[];
}

/** Insertion-ordered map used as an LRU: a hit moves the entry to the end. */
const cache = new Map<string, Compiled>();

function compile(
  source: string,
  cacheSize: number,
): { compiled: Compiled; compiledNow: boolean; ms: number } | string {
  const key = createHash("sha256").update(source).digest("hex");
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return { compiled: hit, compiledNow: false, ms: 0 };
  }
  const started = performance.now();
  const compiler = new Compiler();
  let failure: string | undefined;
  try {
    compiler.addSource(source);
  } catch (err) {
    failure = compilerErrors(compiler, err);
  }
  if (failure === undefined && compiler.errors.length > 0) failure = compilerErrors(compiler, undefined);
  if (failure !== undefined) {
    compiler.free(); // build() consumes the compiler; only a compiler that was not built is freed here.
    return failure;
  }
  const warnings = [...compiler.warnings];
  const compiled = { rules: compiler.build(), warnings };
  cache.set(key, compiled);
  while (cache.size > cacheSize) {
    const oldest = cache.keys().next().value as string;
    cache.get(oldest)?.rules.free();
    cache.delete(oldest);
  }
  return { compiled, compiledNow: true, ms: performance.now() - started };
}

function compilerErrors(compiler: Compiler, err: unknown): string {
  const errors =
    compiler.errors.length > 0 ? compiler.errors : [err instanceof Error ? err.message : String(err)];
  return errors.join("\n\n");
}

export default function run(task: ScanTask | CompileTask): TaskResult {
  const c = compile(task.rules, task.cacheSize);
  if (typeof c === "string") return { ok: false, error: "invalid_rules", message: c };
  if (task.kind === "compile") {
    return {
      ok: true,
      matches: [],
      warnings: c.compiled.warnings,
      compiledNow: c.compiledNow,
      compileMs: c.ms,
      scanMs: 0,
    };
  }
  const data = readFileSync(task.path);
  const started = performance.now();
  const scanner = c.compiled.rules.scanner();
  try {
    scanner.setMaxMatchesPerPattern(task.maxMatchesPerString);
    const result = scanner.scan(data) as YaraXScanResult;
    return {
      ok: true,
      matches: toRuleMatches(result, data, task.plaintextMax),
      warnings: c.compiled.warnings,
      compiledNow: c.compiledNow,
      compileMs: c.ms,
      scanMs: performance.now() - started,
    };
  } finally {
    scanner.free();
  }
}
