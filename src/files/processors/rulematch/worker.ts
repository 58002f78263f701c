/**
 * Runs in a worker thread (piscina): compiles YARA sources with YARA-X (keeping the last few
 * compiled rule sets, keyed by the source's hash) and scans one file. Any fault of the engine
 * (a WebAssembly trap, a stack overflow) may leave its memory corrupt, so this thread records the
 * message on the task's status board and exits: the pool starts a fresh one.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Compiler, initSync, type Rules } from "@virustotal/yara-x";
import { Lru } from "../../../common/lru.ts";
import { catalogueOf, type RuleCatalogue } from "./catalogue.ts";
import { ConsoleCapture } from "./console.ts";
import { inputBytes, type ScanInput } from "./input.ts";
import { checkRules, type RuleLimits, type RuleRefusal } from "./limits.ts";
import { type RuleMatch, toRuleMatches, type YaraXScanResult } from "./matches.ts";
import { metaProbe } from "./probe.ts";
import { PHASE, recordFault, setPhase } from "./status.ts";

// The package is built for browsers; in Node the WebAssembly module is read from beside its entry point.
const engine = initSync({
  module: readFileSync(new URL("yara_x_js_bg.wasm", import.meta.resolve("@virustotal/yara-x"))),
});

// The `console` module prints through this thread's console: it goes into the result, never the log.
const consoleOutput = new ConsoleCapture();

export interface ScanTask {
  /** "scan" compiles and scans; "validate" compiles and reads the rule catalogue (for the native engine). */
  kind: "scan" | "validate";
  rules: string;
  /** Checked here, before compiling, so a long source never holds the event loop. */
  limits: RuleLimits;
  /** The file: its temp file, or its bytes when the upload was kept in memory. */
  input: ScanInput;
  cacheSize: number;
  maxMatchesPerString: number;
  plaintextMax: number;
  consoleMax: number;
  /**
   * Past this many bytes of WebAssembly memory after the task (a large file was copied in, and a
   * WebAssembly memory never shrinks: 200 MB scanned kept 440 MB), the thread ends once it has
   * been idle `recycleIdleMs` and the pool starts a fresh one. Undefined: never.
   */
  recycleBytes?: number;
  /**
   * How long a thread past `recycleBytes` waits for its next task before ending: large files sent
   * one after another reuse its grown memory and compiled rules (a fresh thread pays the engine's
   * load, the compile and a page fault per 4 KB of memory again: docs/benchmarks.md).
   */
  recycleIdleMs?: number;
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

export type ValidateResult =
  | {
      ok: true;
      warnings: string[];
      /** Undefined when the meta probe did not compile: the native engine is not used for this source. */
      catalogue: RuleCatalogue | undefined;
      compiledNow: boolean;
      compileMs: number;
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

const cache = new Lru<Compiled>((evicted) => evicted.rules.free());

function compile(
  source: string,
  limits: RuleLimits,
  cacheSize: number,
): { compiled: Compiled; compiledNow: boolean; ms: number } {
  const key = createHash("sha256").update(source).digest("hex");
  const hit = cache.get(key);
  if (hit) return { compiled: hit, compiledNow: false, ms: 0 };
  const refusal = checkRules(source, limits);
  if (refusal) throw new InvalidRules(refusal.code, refusal.detail);
  const started = performance.now();
  const compiled = build(source);
  if (limits.refuseLargeLoops) refuseLargeLoops(compiled);
  cache.set(key, compiled, cacheSize);
  return { compiled, compiledNow: true, ms: performance.now() - started };
}

/** Compiles one source; compile errors throw InvalidRules, engine traps go up as they are. */
function build(source: string): Compiled {
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
  return { rules: compiler.build(), warnings };
}

/**
 * YARA-X warns `too_many_iterations` when a loop's constant range (nested loops multiplied) reaches
 * a million iterations: `for any i in (0..2^63-2)` would run for days, and neither build's own
 * timeout stops it. Refused before it holds a scan process (issue 27, M3).
 */
function refuseLargeLoops(compiled: Compiled): void {
  const warning = compiled.warnings.find((w) => w.startsWith("warning[too_many_iterations]"));
  if (warning === undefined) return;
  compiled.rules.free();
  throw new InvalidRules(
    "rules_too_complex",
    `A loop of these rules iterates a million times or more (FILES_RULES_LARGE_LOOPS=refuse):\n${warning}`,
  );
}

/** The catalogue of the source's rules, from one scan of its meta probe on an empty input. */
function catalogue(source: string): RuleCatalogue | undefined {
  const probe = metaProbe(source);
  if (probe === undefined) return undefined;
  let rules: Rules;
  try {
    rules = build(probe.source).rules;
  } catch (err) {
    if (err instanceof InvalidRules) return undefined;
    throw err;
  }
  try {
    return catalogueOf(rules.scan(new Uint8Array(0)) as YaraXScanResult, probe.patterns);
  } finally {
    rules.free();
  }
}

function validate(task: ScanTask): ValidateResult {
  setPhase(task.status, PHASE.compiling);
  const c = compile(task.rules, task.limits, task.cacheSize);
  const started = performance.now();
  const rules = catalogue(task.rules);
  return {
    ok: true,
    warnings: c.compiled.warnings,
    catalogue: rules,
    compiledNow: c.compiledNow || rules !== undefined, // the probe was compiled now in any case
    compileMs: c.ms + performance.now() - started,
  };
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
  const data = inputBytes(task.input);
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

/** Ends this thread once it has been idle a while with a grown memory (`ScanTask.recycleBytes`). */
let recycleTimer: NodeJS.Timeout | undefined;

function recycleWhenIdle(task: ScanTask): void {
  if (task.recycleBytes === undefined || engine.memory.buffer.byteLength <= task.recycleBytes) return;
  // Armed after the answer is posted (piscina posts it in a microtask); a task handed to this
  // thread as it ends fails before it starts, and the pool runs it again (pool.ts).
  recycleTimer = setTimeout(() => process.exit(0), task.recycleIdleMs ?? 0);
}

export default function run(task: ScanTask): TaskResult | ValidateResult {
  clearTimeout(recycleTimer);
  try {
    const result = task.kind === "validate" ? validate(task) : scan(task);
    recycleWhenIdle(task);
    return result;
  } catch (err) {
    if (err instanceof InvalidRules) return { ok: false, error: err.code, message: err.message };
    recordFault(task.status, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
    process.exit(70); // ends this thread only; the engine's memory is not trusted again
  }
}
