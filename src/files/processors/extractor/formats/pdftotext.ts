/**
 * PDF page text from poppler's `pdftotext` (C++, about twice as fast as pdf.js's JavaScript text
 * layout), run as a child process of the extraction sandbox: the file's path (or its bytes on
 * stdin, for one that is not on disk), the text of every page on its stdout, one form feed after
 * each page. `-raw` keeps the content stream's order, as pdf.js does (tables row by row). The
 * child is bounded on its own: a data-size rlimit (the sandbox's watchdog reads only its own
 * process), the time the budget has left, and a cap on the bytes of text it may write; it is in
 * the sandbox's process group, so a sandbox killed at its hard limit takes it along.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { findPrlimit, findProgram } from "../../../sandbox/memory.ts";

/** What a run gave: every page, the complete pages before a limit stopped it, or nothing usable. */
export type PdftotextRun =
  | { outcome: "done"; pages: string[] }
  | { outcome: "cut"; pages: string[]; limit: "time" | "text" }
  | { outcome: "failed"; why: string };

export interface PdftotextLimits {
  /** Its data segment at most (RLIMIT_DATA), the sandbox's own resident limit. */
  memoryMb: number;
  /** Killed after this long (never, when not given); the pages finished by then are kept. */
  timeoutMs?: number | undefined;
  /** Stopped once it has written this many bytes of text (no cap, when not given). */
  maxBytes?: number | undefined;
}

export interface PdftotextJob {
  /** Settles once pdftotext holds the whole file (it reads its stdin before parsing): `bytes` may then be handed over. */
  written: Promise<void>;
  result: Promise<PdftotextRun>;
  /** Kills it, if it still runs, and settles once it is gone (the caller gave up: pdf.js could not open the file, or an error). */
  cancel(): Promise<void>;
}

const ARGS = ["-q", "-raw", "-enc", "UTF-8"];
const MB = 1024 * 1024;
/** Looked up once per process: poppler-utils is optional (without it pdf.js reads every page). */
let programs: { pdftotext: string | null; prlimit: string | null } | undefined;
const installed = () => {
  programs ??= { pdftotext: findProgram("pdftotext"), prlimit: findPrlimit() };
  return programs;
};

/** Whether pdftotext is installed here. */
export const hasPdftotext = (): boolean => installed().pdftotext !== null;

/** `input`: a file's path, or "-" for stdin. */
function spawnPdftotext(input: string, memoryMb: number): ChildProcess {
  const { prlimit, pdftotext: program } = installed();
  const pdftotext = [program ?? "pdftotext", ...ARGS, input, "-"];
  const [command, args] = prlimit
    ? [prlimit, [`--data=${memoryMb * MB}`, "--", ...pdftotext]]
    : [pdftotext[0] as string, pdftotext.slice(1)];
  const stdin = input === "-" ? "pipe" : "ignore";
  return spawn(command, args, { stdio: [stdin, "pipe", "ignore"] });
}

/**
 * Starts pdftotext on a file (its path: nothing is copied) or on bytes (through its stdin: read
 * `written` before handing them to anything that takes them over).
 */
export function startPdftotext(source: Uint8Array | string, limits: PdftotextLimits): PdftotextJob {
  // Absolute: a relative path starting with "-" would read as an option.
  const child = spawnPdftotext(typeof source === "string" ? path.resolve(source) : "-", limits.memoryMb);
  const chunks: Buffer[] = [];
  let size = 0;
  let stoppedBy: "time" | "text" | null = null;
  const stop = (limit: "time" | "text") => {
    stoppedBy ??= limit;
    child.kill("SIGKILL");
  };
  const timer = limits.timeoutMs === undefined ? undefined : setTimeout(() => stop("time"), limits.timeoutMs);
  const maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  child.stdout?.on("data", (chunk: Buffer) => {
    if (stoppedBy) return;
    chunks.push(chunk);
    size += chunk.length;
    if (size > maxBytes) stop("text");
  });
  const written = new Promise<void>((resolve) => {
    if (typeof source === "string" || !child.stdin) return resolve();
    // An early exit (no pdftotext, a refused file) ends the write with EPIPE: the result says why.
    child.stdin.on("error", () => resolve());
    child.stdin.once("close", () => resolve());
    child.stdin.end(source, () => resolve());
  });
  const result = new Promise<PdftotextRun>((resolve) => {
    child.once("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ outcome: "failed", why: err.code === "ENOENT" ? "pdftotext is not installed" : err.message });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve(outcomeOf(Buffer.concat(chunks).toString("utf8"), stoppedBy, code, signal));
    });
  });
  const cancel = async () => {
    child.kill("SIGKILL");
    await result;
  };
  return { written, result, cancel };
}

/** Pages end with a form feed: what follows the last one is an unfinished page (or nothing). */
function outcomeOf(
  text: string,
  stoppedBy: "time" | "text" | null,
  code: number | null,
  signal: NodeJS.Signals | null,
): PdftotextRun {
  const pages = text.split("\f");
  pages.pop();
  if (stoppedBy) return { outcome: "cut", pages, limit: stoppedBy };
  if (code === 0) return { outcome: "done", pages };
  return {
    outcome: "failed",
    why: signal ? `pdftotext was killed by ${signal}` : `pdftotext exited with ${code}`,
  };
}
