/**
 * Runs in a worker thread (piscina): compiles YARA sources with YARA-X (keeping the last few
 * compiled rule sets, keyed by the source's hash) and scans one file. Any fault of the engine
 * (a WebAssembly trap, a stack overflow) may leave its memory corrupt, so this thread records the
 * message on the task's status board and exits: the pool starts a fresh one.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Compiler, initSync, type Rules } from "@virustotal/yara-x";
import { ConsoleCapture } from "./console.ts";
import { checkRules, type RuleLimits, type RuleRefusal } from "./limits.ts";
import { type RuleMatch, toRuleMatches, type YaraXScanResult } from "./matches.ts";
import { PHASE, recordFault, setPhase } from "./status.ts";

// The package is built for browsers; in Node the WebAssembly module is read from beside its entry point.
initSync({ module: readFileSync(new URL("yara_x_js_bg.wasm", import.meta.resolve("@virustotal/yara-x"))) });

// The `console` module prints through this thread's console: it goes into the result, never the log.
const consoleOutput = new ConsoleCapture();

export interface ScanTask {
  rules: string;
  /** Checked here, before compiling, so a long source never holds the event loop. */
  limits: RuleLimits;
  path: string;
  cacheSize: number;
  maxMatchesPerString: number;
  plaintextMax: number;
  consoleMax: number;
  status: SharedArrayBuffer;
}

export type TaskResult =
  | {
      ok: true;
      matches: RuleMatch[];
      warnings: string[];
      console: string[];
      consoleTruncated: boolean;
      compiledNow: boolean;
      compileMs: number;
      scanMs: number;
    }
  | { ok: false; error: "invalid_rules" | RuleRefusal["code"]; message: string };

interface Compiled {
  rules: Rules;
  warnings: string[];
}

/** Rules refused by the source check or the compiler (the engine itself is fine). */
class InvalidRules extends Error {
  readonly code: "invalid_rules" | RuleRefusal["code"];
  constructor(code: InvalidRules["code"], message: string) {
    super(message);
    this.code = code;
  }
}

/** Insertion-ordered map used as an LRU: a hit moves the entry to the end. */
const cache = new Map<string, Compiled>();

function compile(
  source: string,
  limits: RuleLimits,
  cacheSize: number,
): { compiled: Compiled; compiledNow: boolean; ms: number } {
  const key = createHash("sha256").update(source).digest("hex");
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return { compiled: hit, compiledNow: false, ms: 0 };
  }
  const refusal = checkRules(source, limits);
  if (refusal) throw new InvalidRules(refusal.code, refusal.detail);
  const started = performance.now();
  const compiler = new Compiler();
  try {
    compiler.addSource(source);
  } catch (err) {
    // A trap is not a compile error: it goes up and retires this thread.
    if (err instanceof RangeError || (err instanceof Error && err.name === "RuntimeError")) throw err;
    throw new InvalidRules("invalid_rules", compilerErrors(compiler, err));
  }
  if (compiler.errors.length > 0)
    throw new InvalidRules("invalid_rules", compilerErrors(compiler, undefined));
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
  compiler.free(); // build() consumes the compiler; only a compiler that was not built is freed here.
  return errors.join("\n\n");
}

function scan(task: ScanTask): TaskResult {
  setPhase(task.status, PHASE.compiling);
  const c = compile(task.rules, task.limits, task.cacheSize);
  setPhase(task.status, PHASE.scanning);
  const data = readFileSync(task.path);
  const started = performance.now();
  const scanner = c.compiled.rules.scanner();
  consoleOutput.start(task.consoleMax);
  try {
    scanner.setMaxMatchesPerPattern(task.maxMatchesPerString);
    const result = scanner.scan(data) as YaraXScanResult;
    return {
      ok: true,
      matches: toRuleMatches(result, data, task.plaintextMax),
      warnings: c.compiled.warnings,
      ...consoleOutput.stop(),
      compiledNow: c.compiledNow,
      compileMs: c.ms,
      scanMs: performance.now() - started,
    };
  } finally {
    scanner.free();
  }
}

export default function run(task: ScanTask): TaskResult {
  try {
    return scan(task);
  } catch (err) {
    if (err instanceof InvalidRules) return { ok: false, error: err.code, message: err.message };
    recordFault(task.status, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
    process.exit(70); // ends this thread only; the engine's memory is not trusted again
  }
}
