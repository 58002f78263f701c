/**
 * TLP and PAP (FIRST's 2.0 levels) and the gate they put before third-party vendors: a subject
 * marked AMBER, AMBER+STRICT or RED is never sent to a connector whose `disclosure` is
 * "third_party", unless INTEL_TLP_ALLOW / INTEL_PAP_ALLOW allow that connector up to that level.
 * The marks that count are sticky: the stricter of the ask's and the subject's stored ones.
 */
import type { Connector } from "../connectors/types.ts";
import { type Marking, rank, stricter } from "../model/markings.ts";
import type { SourceOutcome } from "./sources.ts";

/** From AMBER up, a subject stays away from third parties unless an allowance says otherwise. */
const FIRST_RESTRICTED = rank("AMBER");

export interface Marks {
  tlp: Marking;
  pap: Marking;
}

/** The marks a subject is gated by: each the stricter of the ask's and the stored one (when stored). */
export function stickyMarks(ask: Marks, stored: Marks | undefined): Marks {
  if (!stored) return ask;
  return { tlp: stricter(ask.tlp, stored.tlp), pap: stricter(ask.pap, stored.pap) };
}

export interface GateConfig {
  /** Connector id → the most restricted TLP it may receive (INTEL_TLP_ALLOW). */
  tlpAllow: Record<string, Marking>;
  /** Connector id → the most restricted PAP it may receive (INTEL_PAP_ALLOW). */
  papAllow: Record<string, Marking>;
}

function blocks(level: Marking, allowedUpTo: Marking | undefined): boolean {
  return rank(level) >= FIRST_RESTRICTED && rank(level) > rank(allowedUpTo ?? "GREEN");
}

/**
 * Which connectors may receive a subject asked with `ask` and stored with `stored`, and why each
 * other one is skipped: every path that can reach a vendor (asks, refreshes, the worker) calls it.
 */
export function gate(
  connectors: Connector[],
  ask: Marks,
  stored: Marks | undefined,
  config: GateConfig,
): { marks: Marks; allowed: Connector[]; skipped: Record<string, SourceOutcome> } {
  const marks = stickyMarks(ask, stored);
  const allowed: Connector[] = [];
  const skipped: Record<string, SourceOutcome> = {};
  for (const c of connectors) {
    const thirdParty = c.disclosure === "third_party";
    const reason =
      thirdParty && blocks(marks.tlp, config.tlpAllow[c.id])
        ? "tlp"
        : thirdParty && blocks(marks.pap, config.papAllow[c.id])
          ? "pap"
          : undefined;
    if (reason) skipped[c.id] = { status: "skipped", reason, error: null, fetched_at: null };
    else allowed.push(c);
  }
  return { marks, allowed, skipped };
}
