/**
 * Which engine answers a rule scan. The WebAssembly build (worker threads) stays the authority
 * for compiling: every source is checked and compiled there once (errors, warnings and refusals
 * as before), and the catalogue of its rules is read from its meta probe. The scan itself runs
 * natively in a sandbox process when it can; the WebAssembly build scans instead when the rules
 * use `console` (its output is captured there), when the native build refuses the source, when
 * a matched rule cannot be completed from the catalogue, when the native process died, or, for a
 * light client, when no native process is ready (all busy or booting after runaway loops were
 * killed: the boot costs 0.4–2 s, the WebAssembly scan milliseconds). Heavy clients wait for a
 * native process: their runaway loops would cost a WebAssembly thread and its compiled rules.
 */
import { createHash } from "node:crypto";
import { Lru } from "../../../common/lru.ts";
import { completeNativeMatches, type RuleCatalogue } from "./catalogue.ts";
import type { NativeTask } from "./native/child.ts";
import type { NativeEngine } from "./native/engine.ts";
import type { YaraPool } from "./pool.ts";
import type { ScanTask, TaskResult } from "./worker.ts";

type Task = Omit<ScanTask, "status" | "kind">;

/** What the server process knows of a source the WebAssembly build compiled. */
interface KnownSource {
  warnings: string[];
  catalogue: RuleCatalogue | undefined;
  /** Why the native engine is not used for this source (set when it refused it). */
  nativeRefused?: string;
}

/** A source ready for the native engine, with what its WebAssembly compile cost this request. */
interface Checked {
  ok: true;
  source: KnownSource;
  compiledNow: boolean;
  compileMs: number;
}

/** `console` output is captured by the WebAssembly worker only; a mention in a comment just costs speed. */
const USES_CONSOLE = /\bimport\s+"console"/;

export interface ScannerOptions {
  /** Largest file the native engine scans (FILES_RULES_NATIVE_MAX_BYTES). */
  nativeMaxBytes: number;
  /** How long the scan of a file of `size` bytes may run once an engine took it, in ms. */
  budgetMs(size: number): number;
}

export class RuleScanner {
  readonly #wasm: YaraPool;
  readonly #native: NativeEngine | undefined;
  readonly #options: ScannerOptions;
  readonly #known = new Lru<KnownSource>();
  /** Scans answered natively, and by the WebAssembly build instead (with the last reason). */
  nativeAnswers = 0;
  fallbacks = 0;
  lastFallback: string | undefined;
  /** Scans the WebAssembly build answered because no native process was ready. */
  notReady = 0;

  constructor(wasm: YaraPool, native: NativeEngine | undefined, options: ScannerOptions) {
    this.#wasm = wasm;
    this.#native = native;
    this.#options = options;
  }

  /** Scans `task.input` (`size` bytes); `light`: for a client that is not heavy (share.ts). */
  async scan(task: Task, size: number, signal: AbortSignal, light = true): Promise<TaskResult> {
    const native = this.#native;
    const budgetMs = this.#options.budgetMs(size);
    // Past FILES_RULES_NATIVE_MAX_BYTES the per-scan cost no longer matters and the WebAssembly build
    // (a newer YARA-X) is faster per byte on some patterns (hex jumps, nocase: 2× on 20 MB).
    if (
      !native ||
      native.unavailable !== null ||
      size > this.#options.nativeMaxBytes ||
      USES_CONSOLE.test(task.rules)
    )
      return this.#wasm.scan(task, signal, budgetMs);
    const key = createHash("sha256").update(task.rules).digest("hex");
    const checked = await this.#validated(task, key, signal);
    if (!checked.ok) return checked;
    if (light && !native.readyNow()) {
      this.notReady++;
      return this.#wasmScan(task, signal, checked, budgetMs);
    }
    const answer = await this.#nativeAnswer(native, { ...task, key }, checked, signal, budgetMs);
    return typeof answer === "string" ? this.#fallback(task, signal, answer, checked, budgetMs) : answer;
  }

  /** The native engine's answer, completed from the catalogue; or why the WebAssembly build must answer. */
  async #nativeAnswer(
    native: NativeEngine,
    task: NativeTask,
    checked: Checked,
    signal: AbortSignal,
    budgetMs: number,
  ): Promise<TaskResult | string> {
    const { source } = checked;
    if (source.nativeRefused !== undefined) return source.nativeRefused;
    if (!source.catalogue) return "the meta probe did not compile";
    const outcome = await native.scan(task, signal, budgetMs);
    if (!outcome.ok) {
      if (outcome.refused) source.nativeRefused = outcome.why;
      return outcome.why;
    }
    const matches = completeNativeMatches(outcome.result.rules, source.catalogue);
    if (!matches) return "a matched rule cannot be completed from the catalogue";
    this.nativeAnswers++;
    const { compiledNow, compileMs, scanMs } = outcome.result;
    return {
      ok: true,
      matches,
      warnings: source.warnings,
      console: [],
      consoleTruncated: false,
      compiledNow: checked.compiledNow || compiledNow,
      compileMs: checked.compileMs + compileMs,
      scanMs,
    };
  }

  /** The source as the WebAssembly build compiled it: asked once, then known by its hash. */
  async #validated(
    task: Task,
    key: string,
    signal: AbortSignal,
  ): Promise<Checked | Extract<TaskResult, { ok: false }>> {
    const known = this.#known.get(key);
    if (known) return { ok: true, source: known, compiledNow: false, compileMs: 0 };
    const result = await this.#wasm.validate(task, signal);
    if (!result.ok) return result;
    const source = { warnings: result.warnings, catalogue: result.catalogue };
    this.#known.set(key, source, Math.max(1, task.cacheSize));
    return { ok: true, source, compiledNow: result.compiledNow, compileMs: result.compileMs };
  }

  async #fallback(
    task: Task,
    signal: AbortSignal,
    why: string,
    checked: { compiledNow: boolean; compileMs: number },
    budgetMs: number,
  ): Promise<TaskResult> {
    this.fallbacks++;
    this.lastFallback = why;
    return this.#wasmScan(task, signal, checked, budgetMs);
  }

  /** The WebAssembly build's scan, with what the source's compile cost this request. */
  async #wasmScan(
    task: Task,
    signal: AbortSignal,
    checked: { compiledNow: boolean; compileMs: number },
    budgetMs: number,
  ): Promise<TaskResult> {
    const result = await this.#wasm.scan(task, signal, budgetMs);
    if (!result.ok) return result;
    return {
      ...result,
      compiledNow: checked.compiledNow || result.compiledNow,
      compileMs: checked.compileMs + result.compileMs,
    };
  }
}
