/**
 * Each vendor's part of a result (`sources.<vendor>`): its stored outcome and, when an answer is
 * made, how old it is and whether that answer asked the vendor.
 */

import { type Chunks, lastBytes, withoutLast } from "../../common/chunks.ts";
import type { AnswerCap } from "./answer-cap.ts";

/** One vendor's outcome as stored: what it answered, or why it failed or was not asked. */
export interface SourceOutcome {
  status: "ok" | "error" | "not_found" | "skipped";
  error: string | null;
  fetched_at: string | null;
  /** Why a vendor was skipped: the subject's TLP or PAP forbids sending it there. */
  reason?: "tlp" | "pap";
  /** The answer named more entities than INTEL_ANSWER_MAX_ENTITIES: how many, and how many were kept. */
  capped?: AnswerCap;
}

/** A vendor's part of an answer: its stored outcome, how old it is, and whether this answer asked it. */
export interface SourceView extends SourceOutcome {
  /** Whole seconds since `fetched_at` (null when the vendor was never asked). */
  age_seconds: number | null;
  /** True when served from storage without asking the vendor in this request (false when skipped). */
  from_cache: boolean;
}

export function sourceViews(
  stored: Record<string, SourceOutcome>,
  now: number,
  askedNow: ReadonlySet<string> = new Set(),
): Record<string, SourceView> {
  const views: Record<string, SourceView> = {};
  for (const [vendor, outcome] of Object.entries(stored).sort(([a], [b]) => a.localeCompare(b))) {
    const fetched = outcome.fetched_at ? Date.parse(outcome.fetched_at) : Number.NaN;
    views[vendor] = {
      ...outcome,
      age_seconds: Number.isNaN(fetched) ? null : Math.max(0, Math.floor((now - fetched) / 1000)),
      // A skipped vendor gave nothing, from storage or otherwise.
      from_cache: outcome.status !== "skipped" && !askedNow.has(vendor),
    };
  }
  return views;
}

const EMPTY_SOURCES = Buffer.from('"nobody_asked":null,"sources":{}}');

/**
 * The last answer made from each rendered document: while its sources read the same (ages count
 * in whole seconds), the same bytes are sent again instead of copying the document for each one.
 */
const lastAnswers = new WeakMap<Chunks, { sources: string; answer: Chunks }>();

/**
 * A rendered document (built with no sources, its last key) with `sources` filled in, and before
 * them `nobody_asked` (domain/nobody-asked.ts): the rendered bytes stay cacheable while each answer
 * carries its own ages. The result may be shared: never write into it.
 */
export function withSources(
  rendered: Chunks,
  sources: Record<string, SourceView>,
  nobodyAsked: object | null = null,
): Chunks {
  const text = `"nobody_asked":${JSON.stringify(nobodyAsked)},"sources":${JSON.stringify(sources)}}`;
  const last = lastAnswers.get(rendered);
  if (last?.sources === text) return last.answer;
  if (!lastBytes(rendered, EMPTY_SOURCES.length).equals(EMPTY_SOURCES))
    throw new Error("the rendered document does not end with nobody_asked and sources empty");
  // Views of the rendered slices and the new tail: a 25 MB document is not copied per answer.
  const answer = [...withoutLast(rendered, EMPTY_SOURCES.length), Buffer.from(text)];
  lastAnswers.set(rendered, { sources: text, answer });
  return answer;
}
