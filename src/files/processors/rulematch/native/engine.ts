/**
 * The native YARA-X engine behind a pool of sandbox processes (resident-memory watchdog, data
 * rlimit, a time limit that kills the process: a real timeout). The pool starts on the first
 * native scan. A process that dies mid-scan is counted and reported in health; the caller then
 * answers from the WebAssembly build (or fails, with FILES_RULES_ENGINE=native). A process that cannot
 * start (the package does not load on this platform) turns the native engine off for good.
 */
import { readFileSync } from "node:fs";
import { findPrlimit } from "../../../sandbox/memory.ts";
import { type PoolHealth, SandboxFailure, SandboxPool } from "../../../sandbox/pool.ts";
import { ProcessorFailure } from "../../processor.ts";
import { scanPastBudget } from "../pool.ts";
import { NATIVE_PACKAGE } from "./binding.ts";
import type { NativeResult, NativeTask } from "./child.ts";

export interface NativeEngineOptions {
  /** "native": a crash or a missing package fails the request instead of falling back. */
  strict: boolean;
  processes: number;
  minProcesses: number;
  idleMs: number;
  memoryMb: number;
  timeoutMs: number;
}

/** A native answer, or why the WebAssembly build must answer instead (`refused`: the native build refused the source, and will again). */
export type NativeOutcome =
  | { ok: true; result: Extract<NativeResult, { ok: true }> }
  | { ok: false; why: string; refused: boolean };

export class NativeEngine {
  #pool: SandboxPool<NativeTask, NativeResult> | undefined;
  readonly #options: NativeEngineOptions;
  /** Why the native engine is off for good (its process could not start), else null. */
  unavailable: string | null = null;
  /** Native processes that died during a scan since the start. */
  crashes = 0;
  lastCrash: { at: string; reason: string } | undefined;

  constructor(options: NativeEngineOptions) {
    this.#options = options;
  }

  get started(): number {
    return this.#pool?.started ?? 0;
  }

  /**
   * Whether a native scan would start at once. Not while every process is busy or booting (a
   * runaway loop killed at its budget costs a process, and its replacement boots for 0.4–2 s):
   * the caller scans with the WebAssembly build meanwhile. Always with FILES_RULES_ENGINE=native, and
   * before the first native scan (it starts the pool).
   */
  readyNow(): boolean {
    return this.#options.strict || this.#pool === undefined || this.#pool.readyNow();
  }

  /** The pool's processes by state and the watchdog's recoveries (undefined before the first native scan). */
  get health(): PoolHealth | undefined {
    return this.#pool?.health();
  }

  /**
   * Scans natively within `budgetMs` once a process took the task (FILES_SCAN_TIMEOUT_MS covers the
   * wait too); deadline and memory failures are the request's, a crash is a fallback.
   */
  async scan(task: NativeTask, clientGone: AbortSignal, budgetMs?: number): Promise<NativeOutcome> {
    if (this.unavailable !== null) return this.#fallback(`native engine unavailable: ${this.unavailable}`);
    const deadline = AbortSignal.timeout(this.#options.timeoutMs);
    const pool = this.#ensurePool();
    try {
      const result = await pool.run(task, AbortSignal.any([deadline, clientGone]), budgetMs);
      return result.ok
        ? { ok: true, result }
        : { ok: false, why: `native compile refused: ${result.refused}`, refused: true };
    } catch (err) {
      if (deadline.aborted) {
        throw new ProcessorFailure(
          "timeout",
          `The YARA scan did not finish within ${this.#options.timeoutMs} ms and was stopped.`,
        );
      }
      if (err instanceof SandboxFailure && err.kind === "timeout") {
        throw budgetMs === undefined
          ? new ProcessorFailure("timeout", err.message)
          : scanPastBudget(budgetMs);
      }
      if (clientGone.aborted)
        throw new ProcessorFailure("aborted", "The client went away; the scan was stopped.");
      if (err instanceof SandboxFailure && err.kind === "resource_limit")
        throw new ProcessorFailure("resource_limit", err.message);
      return this.#crashed(err, pool);
    }
  }

  #crashed(err: unknown, pool: SandboxPool<NativeTask, NativeResult>): NativeOutcome {
    const reason = err instanceof Error ? err.message : String(err);
    if (pool.startFailure !== null) this.unavailable = pool.startFailure;
    else {
      this.crashes++;
      this.lastCrash = { at: new Date().toISOString(), reason };
    }
    return this.#fallback(reason);
  }

  #fallback(why: string): NativeOutcome {
    if (this.#options.strict)
      throw new ProcessorFailure("engine_error", `The native YARA-X engine failed: ${why}`);
    return { ok: false, why, refused: false };
  }

  #ensurePool(): SandboxPool<NativeTask, NativeResult> {
    this.#pool ??= new SandboxPool<NativeTask, NativeResult>({
      label: "The native YARA scan",
      module: new URL("./child.ts", import.meta.url),
      memoryMb: this.#options.memoryMb,
      timeoutMs: this.#options.timeoutMs,
      prlimit: findPrlimit(),
      size: this.#options.processes,
      minIdle: this.#options.minProcesses,
      idleMs: this.#options.idleMs,
    });
    return this.#pool;
  }

  async close(): Promise<void> {
    await this.#pool?.close();
  }
}

/** The native package's version and the YARA-X version it embeds, or why it is missing. */
export function nativeVersion(): string {
  try {
    const url = new URL("./package.json", import.meta.resolve(`${NATIVE_PACKAGE}/package.json`));
    const { version } = JSON.parse(readFileSync(url, "utf8")) as { version: string };
    return `yara-x ${EMBEDDED_YARA_X} (${NATIVE_PACKAGE} ${version})`;
  } catch (err) {
    return `not installed (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** The YARA-X crate version the package's prebuilt binary embeds (its Cargo.lock; not exported at run time). */
const EMBEDDED_YARA_X = "1.7.1";
