/**
 * How long a vendor's stored answer stays fresh, which vendors of a stored answer need asking
 * again, and how a refresh's outcomes merge with the subject's earlier ones.
 */
import type { Connector } from "../connectors/types.ts";
import type { SourceOutcome } from "./sources.ts";

/** A connector that declares no TTL keeps its answers this long. */
export const DEFAULT_TTL_SECONDS = 24 * 3600;

export interface FreshnessConfig {
  /** INTEL_VENDOR_TTL_<ID> overrides, by connector id. */
  vendorTtlSeconds: Record<string, number>;
  /** A failed vendor is asked again after this long (the 502 cool-down). */
  failureCooldownMs: number;
}

export function ttlSeconds(connector: Connector, config: Pick<FreshnessConfig, "vendorTtlSeconds">): number {
  return config.vendorTtlSeconds[connector.id] ?? connector.ttlSeconds ?? DEFAULT_TTL_SECONDS;
}

/**
 * The connectors among `asked` whose stored part is missing or too old: an answer older than its
 * TTL, a failure older than the cool-down, or a vendor skipped earlier that may be asked now.
 */
export function staleConnectors(
  asked: Connector[],
  stored: Record<string, SourceOutcome>,
  now: number,
  config: FreshnessConfig,
): Connector[] {
  return asked.filter((c) => {
    const outcome = stored[c.id];
    const fetched = Date.parse(outcome?.fetched_at ?? "");
    if (!outcome || outcome.status === "skipped" || Number.isNaN(fetched)) return true;
    const lifetimeMs = outcome.status === "error" ? config.failureCooldownMs : ttlSeconds(c, config) * 1000;
    return now - fetched >= lifetimeMs;
  });
}

/**
 * A subject's per-vendor outcomes after a request: the new ones win, except that a vendor skipped
 * now keeps what an earlier request fetched (its data is still in the graph).
 */
export function mergeSources(
  previous: Record<string, SourceOutcome>,
  current: Record<string, SourceOutcome>,
): Record<string, SourceOutcome> {
  const merged = { ...previous };
  for (const [vendor, outcome] of Object.entries(current)) {
    if (outcome.status === "skipped" && merged[vendor]) continue;
    merged[vendor] = outcome;
  }
  return merged;
}

/** A subject is FAILED when vendors were asked and every one failed (skipped vendors do not count). */
export function allFailed(sources: Record<string, SourceOutcome>): boolean {
  const asked = Object.values(sources).filter((o) => o.status !== "skipped");
  return asked.length > 0 && asked.every((o) => o.status === "error");
}
