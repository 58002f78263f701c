/**
 * Enriching an analysis: the indicators found in its tree (at most INTEL_ANALYSIS_ENRICH_MAX, in
 * the tree's order) are asked of intel through `askAbout` — the one path every API ask takes, so
 * `gate()` decides with the analysis' TLP/PAP and a RED file's indicators reach only local and
 * own-instance sources. Each indicator keeps the request that answers it; its verdict is read from
 * that request whenever the analysis is read.
 */
import pLimit from "p-limit";
import { HttpError } from "../../common/errors.ts";
import { type FoundIndicator, foundIndicators } from "../domain/analysis-result.ts";
import { subjectKey } from "../domain/result-reads.ts";
import type { SourceOutcome } from "../domain/sources.ts";
import type { Subject } from "../model/graph.ts";
import { checkValue, findType } from "../model/taxonomy.ts";
import { type AnalysisRow, type IndicatorRow, indicatorsOf, saveIndicators } from "../store/analyses.ts";
import type { AnalysisIndicatorsTable } from "../store/analysis-schema.ts";
import { latestLookup } from "../store/requests.ts";
import { linkAnalysis } from "./analysis-graph.ts";
import { recordAudit } from "./audit.ts";
import type { IntelServices } from "./index.ts";
import { askAbout, VendorsFailed } from "./requests.ts";

type Services = Pick<IntelServices, "store" | "config" | "connectors" | "requests">;

/** Asks made at once: each is a few statements; the vendors are asked by the workers, not here. */
const PARALLEL = 4;

export interface IndicatorVerdict {
  super_type: string;
  type: string;
  value: string;
  paths: string[];
  request_id: string | null;
  /** pending (asked, no answer yet), found (some source knows it), not_found, failed, not_asked (see error). */
  verdict: "pending" | "found" | "not_found" | "failed" | "not_asked";
  /** Each source's outcome (ok, not_found, error, skipped by TLP/PAP) once the request finished. */
  sources: Record<string, string>;
  error: string | null;
}

/** The indicator as a subject intel knows (normalised as an ask's value is), or why not. */
function subjectOf(i: FoundIndicator): Subject | { error: string } {
  const type = findType(i.superType, i.type);
  if (!type) return { error: `intel knows no type ${i.superType}/${i.type}` };
  const checked = checkValue(type, i.value);
  if ("problem" in checked) return { error: checked.problem };
  return { superType: i.superType.toUpperCase(), type: type.shortName, value: checked.value };
}

type Ask = { subject: Subject; found: FoundIndicator };

async function askOne(services: Services, row: AnalysisRow, ask: Ask): Promise<AnalysisIndicatorsTable> {
  const base = {
    analysis_id: row.id,
    super_type: ask.subject.superType,
    type: ask.subject.type,
    value: ask.subject.value,
    paths: JSON.stringify(ask.found.paths),
    asked_at: new Date().toISOString(),
  };
  try {
    const answer = await askAbout(services, ask.subject, {
      force: false,
      depth: 1,
      tlp: row.tlp,
      pap: row.pap,
    });
    const requestId =
      answer.status === 201
        ? answer.request.id
        : ((await latestLookup(services.store.db, subjectKey(ask.subject)))?.request_id ?? null);
    return { ...base, request_id: requestId, error: null };
  } catch (err) {
    if (err instanceof VendorsFailed) return { ...base, request_id: String(err.extra?.request), error: null };
    if (err instanceof HttpError) return { ...base, request_id: null, error: err.message };
    throw err;
  }
}

/** Asks intel about the analysis' indicators with its marking; what each one's verdict is so far. */
export async function enrichAnalysis(
  services: Services,
  actor: string,
  row: AnalysisRow,
): Promise<{ indicators: IndicatorVerdict[]; left_out: number }> {
  if (row.status !== "done" || row.result === null)
    throw new HttpError(
      409,
      "analysis_not_done",
      "The analysis has no result yet (or failed): nothing to enrich.",
    );
  const found = foundIndicators(JSON.parse(row.result), row.name);
  const max = services.config.analysisEnrichMax;
  const chosen = found.slice(0, max);
  const asks: Ask[] = [];
  const refused: AnalysisIndicatorsTable[] = [];
  for (const f of chosen) {
    const subject = subjectOf(f);
    if ("error" in subject)
      refused.push({
        analysis_id: row.id,
        super_type: f.superType,
        type: f.type,
        value: f.value,
        paths: JSON.stringify(f.paths),
        request_id: null,
        error: subject.error,
        asked_at: new Date().toISOString(),
      });
    else asks.push({ subject, found: f });
  }
  // The file and its indicators are in the graph, with the analysis' marking, before any ask.
  await linkAnalysis(
    services,
    row,
    asks.map((a) => a.subject),
  );
  const slot = pLimit(PARALLEL);
  const asked = await Promise.all(asks.map((a) => slot(() => askOne(services, row, a))));
  await saveIndicators(services.store.db, row.id, [...asked, ...refused]);
  await recordAudit(
    services,
    actor,
    "analysis.enrich",
    row.id,
    `${asked.length} indicator(s) asked with TLP:${row.tlp} PAP:${row.pap}, ${refused.length} not askable, ${Math.max(0, found.length - max)} left out`,
  );
  return { indicators: await enrichmentOf(services, row.id), left_out: Math.max(0, found.length - max) };
}

function verdictOf(r: IndicatorRow): Pick<IndicatorVerdict, "verdict" | "sources"> {
  if (r.request_id === null) return { verdict: "not_asked", sources: {} };
  const status = r.request_status;
  if (status === null || status === "ENQUEUED" || status === "PROCESSING" || status === "CREATED")
    return { verdict: "pending", sources: {} };
  const outcomes = JSON.parse(r.request_vendors ?? "{}") as Record<string, SourceOutcome>;
  const sources = Object.fromEntries(Object.entries(outcomes).map(([v, o]) => [v, o.status]));
  if (status === "FAILED") return { verdict: "failed", sources };
  const known = Object.values(outcomes).some((o) => o.status === "ok");
  return { verdict: known ? "found" : "not_found", sources };
}

/** The enriched indicators of an analysis, each with its verdict as known now. */
export async function enrichmentOf(services: Services, id: string): Promise<IndicatorVerdict[]> {
  return (await indicatorsOf(services.store.db, id)).map((r) => ({
    super_type: r.super_type,
    type: r.type,
    value: r.value,
    paths: JSON.parse(r.paths) as string[],
    request_id: r.request_id,
    ...verdictOf(r),
    error: r.error,
  }));
}
