/**
 * One budget per extraction, shared by every level of nesting: characters of text kept, bytes
 * unpacked, archive entries opened, key-derivation rounds spent on passwords, and time. Limits checked only at the end let a 3 KB archive
 * fill the heap first; this object is asked *before* work is done, and the first reason it says
 * no becomes the partial result's `extra.loupe.truncated`.
 */
import type { Keyring } from "./passwords.ts";
import type { ExtractLimits } from "./result.ts";
import type { Tree } from "./tree.ts";

/**
 * The limits of one extraction with its running budget, keyring and tree (created once per file,
 * in the worker; without a tree, children are read but not recorded).
 */
export type Limits = ExtractLimits & {
  budget: Budget;
  keyring?: Keyring;
  tree?: Tree;
  /** Where the upload (the tree's root) is on disk: a program reads it there rather than from a pipe. */
  uploadPath?: string;
};

/** Of the extraction's time, the share after which no further archive entry is opened. */
const SOFT_TIME_SHARE = 0.75;
const OUT_OF_TIME = "the time limit came near: later entries were not opened";

export class Budget {
  #chars: number;
  #bytes: number;
  #entries: number;
  #keyRounds: number;
  readonly #softDeadline: number;
  /** Why the extraction is partial (the first budget that ran out), or null. */
  reason: string | null = null;

  /** `deadline`: when the extraction's time is up (epoch ms; time spent waiting for a process counts). */
  constructor(limits: ExtractLimits, deadline: number, now = Date.now()) {
    this.#chars = limits.maxChars;
    this.#bytes = limits.maxArchiveBytes;
    this.#entries = limits.maxArchiveEntries;
    this.#keyRounds = limits.maxKeyRounds ?? Number.POSITIVE_INFINITY;
    this.#softDeadline = now + Math.max(0, deadline - now) * SOFT_TIME_SHARE;
  }

  get charsLeft(): number {
    return this.#chars;
  }

  get bytesLeft(): number {
    return this.#bytes;
  }

  /** Records why the result is partial (the first reason wins) and passes it on. */
  stop(reason: string): string {
    this.reason ??= reason;
    return reason;
  }

  /** Takes `text` into the result, cut at the characters left. */
  takeText(text: string): string {
    if (text.length <= this.#chars) {
      this.#chars -= text.length;
      return text;
    }
    const kept = text.slice(0, this.#chars);
    this.#chars = 0;
    this.stop("more text than FILES_EXTRACT_MAX_CHARS allows");
    return kept;
  }

  /** Reserves `n` unpacked bytes; false (and the reason recorded) when they do not fit. */
  takeBytes(n: number, total: number): boolean {
    if (n > this.#bytes) {
      this.stop(`more than ${total} uncompressed bytes`);
      return false;
    }
    this.#bytes -= n;
    return true;
  }

  /** Records that a compressed stream was cut at the bytes budget (its first `kept` bytes are read). */
  cutStream(kept: number, total: number): string {
    return this.stop(
      `more than ${total} uncompressed bytes: the stream was cut after its first ${kept} bytes, which are read`,
    );
  }

  /** Reserves one archive entry; false (and the reason recorded) past the count. */
  takeEntry(total: number): boolean {
    if (this.#entries <= 0) {
      this.stop(`more than ${total} entries`);
      return false;
    }
    this.#entries--;
    return true;
  }

  /**
   * Reserves `n` key-derivation rounds (a password tried on a 7z key); false past the budget. Not a
   * reason for the whole result: only the encrypted entries left closed say so.
   */
  takeKeyRounds(n: number): boolean {
    if (n > this.#keyRounds) return false;
    this.#keyRounds -= n;
    return true;
  }

  /** False once most of the time is spent: no further entry is opened, what was read is returned. */
  hasTime(): boolean {
    if (Date.now() <= this.#softDeadline) return true;
    this.stop(OUT_OF_TIME);
    return false;
  }

  /** How long work may still start (a child process given this long is stopped at the same point). */
  timeLeftMs(): number {
    return Math.max(0, this.#softDeadline - Date.now());
  }

  /** Records that work was stopped at the time limit (a child process killed at `timeLeftMs`). */
  outOfTime(): string {
    return this.stop(OUT_OF_TIME);
  }
}
