/**
 * An analysis as the API answers it (docs/api.md, "Files analyses"). The files service's answer is
 * stored as the text it sent and spliced into the JSON as is: a 1,000-node tree is not parsed and
 * serialised again on every read.
 */
import type { AnalysisRow } from "../store/analyses.ts";

export interface AnalysisView {
  id: string;
  name: string;
  sha256: string;
  sha1: string;
  md5: string;
  size: number;
  user: string | null;
  created: string;
  finished: string | null;
  status: "pending" | "done" | "failed";
  error: { code: string; detail: string } | null;
  tlp: string;
  pap: string;
  verdict: string | null;
  shared: boolean;
  /** The analysis whose stored answer this upload reused (the cache), or null. */
  cached_from: string | null;
  /** Seconds since the files service made this answer (null until done). */
  age_seconds: number | null;
  file_kept: boolean;
}

function errorOf(stored: string | null): AnalysisView["error"] {
  if (stored === null) return null;
  try {
    const e = JSON.parse(stored) as { code?: unknown; detail?: unknown };
    if (typeof e.code === "string" && typeof e.detail === "string") return { code: e.code, detail: e.detail };
  } catch {
    // An older or hand-written reason: shown as it is.
  }
  return { code: "failed", detail: stored };
}

export function analysisView(row: AnalysisRow): AnalysisView {
  const finished = row.finished_at;
  return {
    id: row.id,
    name: row.name,
    sha256: row.sha256,
    sha1: row.sha1,
    md5: row.md5,
    size: Number(row.size),
    user: row.username,
    created: row.created_at,
    finished,
    status: row.status as AnalysisView["status"],
    error: errorOf(row.error),
    tlp: row.tlp,
    pap: row.pap,
    verdict: row.verdict,
    shared: row.shared === 1,
    cached_from: row.cached_from,
    age_seconds:
      row.status === "done" && finished
        ? Math.max(0, Math.floor((Date.now() - Date.parse(finished)) / 1000))
        : null,
    file_kept: row.file_path !== null && row.status !== "pending",
  };
}

/** The whole analysis as JSON text: its view, `extra` (the enrichment), and the files service's answer (`result`). */
export function analysisJson(row: AnalysisRow, extra: Record<string, unknown> = {}): string {
  const head = JSON.stringify({ ...analysisView(row), ...extra });
  return `${head.slice(0, -1)},"result":${row.result ?? "null"}}`;
}
