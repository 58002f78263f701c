/**
 * One processor's work as its entry of the answer, written once for every route: the output, or
 * the failure inside the entry (HTTP 200, `success: false`, never a 5xx); a 400 (`HttpError`,
 * bad fields) is passed on to refuse the request. An unexpected error is logged and reported as
 * `internal_error`.
 */
import type { FastifyBaseLogger } from "fastify";
import { HttpError } from "../../common/errors.ts";
import { type Processor, ProcessorFailure, type ProcessorOutput } from "./processor.ts";

export interface Entry {
  success: boolean;
  processor_name: string;
  processor_url: string;
  processor_description: string;
  error: string | null;
  error_short: string | null;
  metadata: unknown;
  analysis: unknown;
  /** The extracted text, lifted to the answer's top-level `content` (not part of the entry). */
  content?: string | null;
}

export function entryHeader(p: Pick<Processor, "name" | "url" | "description">) {
  return { processor_name: p.name, processor_url: p.url, processor_description: p.description };
}

export function okEntry(p: Processor, out: ProcessorOutput): Entry {
  const ok = { ...entryHeader(p), success: true, error: null, error_short: null };
  return { ...ok, metadata: out.metadata, analysis: out.analysis, content: out.content };
}

export async function entryOf(
  p: Processor,
  work: () => Promise<ProcessorOutput>,
  { log, signal }: { log: FastifyBaseLogger; signal: AbortSignal },
): Promise<Entry> {
  try {
    return okEntry(p, await work());
  } catch (thrown) {
    if (thrown instanceof HttpError) throw thrown;
    const err = clientGone(thrown, signal) ?? thrown;
    if (!(err instanceof ProcessorFailure))
      log.error({ err, processor: p.name }, "processor failed unexpectedly");
    const failure =
      err instanceof ProcessorFailure
        ? err
        : new ProcessorFailure("internal_error", `The ${p.name} processor failed: ${String(err)}`);
    const failed = { ...entryHeader(p), success: false, error: failure.message, error_short: failure.short };
    return { ...failed, metadata: null, analysis: null };
  }
}

/**
 * The client went away, which is no fault of the processor's: a worker pool's task stopped by the
 * request's signal (piscina's AbortError; pools whose own deadlines abort say so themselves), or
 * any failure once the signal fired — the request's scratch files (a child's bytes) are removed
 * when its client leaves, so a node analysis still opening one meets ENOENT.
 */
function clientGone(err: unknown, signal: AbortSignal): ProcessorFailure | undefined {
  const aborted = err instanceof Error && err.name === "AbortError";
  if (!aborted && !signal.aborted) return undefined;
  return new ProcessorFailure("aborted", "The client went away; the work was stopped.");
}

/** A single route's answer: Mandolin's Analysis with the one entry. */
export function singleAnswer({ content, ...entry }: Entry) {
  return {
    success: entry.success,
    content: entry.success ? (content ?? null) : null,
    error: entry.error,
    error_short: entry.error_short,
    processors: { [entry.processor_name]: entry },
  };
}
