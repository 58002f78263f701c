/**
 * TLP and PAP (FIRST's 2.0 levels) and the gate they put before third-party vendors: a subject
 * marked AMBER, AMBER+STRICT or RED is never sent to a connector whose `disclosure` is
 * "third_party", unless INTEL_TLP_ALLOW / INTEL_PAP_ALLOW allow that connector up to that level.
 */
import type { Connector } from "../connectors/types.ts";
import type { SourceOutcome } from "./sources.ts";

/** From the least to the most restricted. */
export const MARKINGS = ["CLEAR", "GREEN", "AMBER", "AMBER+STRICT", "RED"] as const;
export type Marking = (typeof MARKINGS)[number];

/** Rank of every stored spelling: entities written before TLP 2.0 say WHITE for CLEAR. */
const RANK: Record<string, number> = { CLEAR: 0, WHITE: 0, GREEN: 1, AMBER: 2, "AMBER+STRICT": 3, RED: 4 };

/** The level a person wrote: case-insensitive, with or without `TLP:`/`PAP:`; WHITE (TLP 1.0) is CLEAR. */
export function parseMarking(raw: string): Marking | undefined {
  const v = raw
    .trim()
    .toUpperCase()
    .replace(/^(TLP|PAP):/, "");
  if (v === "WHITE") return "CLEAR";
  return MARKINGS.find((m) => m === v);
}

export const rank = (stored: string): number => RANK[stored.toUpperCase()] ?? 0;

/** Every stored spelling less restricted than `m` (what an atomic "raise to m" may overwrite). */
export const weakerThan = (m: Marking): string[] => Object.keys(RANK).filter((k) => RANK[k]! < RANK[m]!);

/** How an entity stores a level: CLEAR keeps TLP 1.0's WHITE, the word Threatr and Colander use. */
export const storedName = (m: Marking): string => (m === "CLEAR" ? "WHITE" : m);

/** A stored level in Threatr's four words (RED, AMBER, GREEN, WHITE), which Colander's models accept. */
export const threatrName = (stored: string): string =>
  stored === "AMBER+STRICT" ? "AMBER" : stored === "CLEAR" ? "WHITE" : stored;

/** From AMBER up, a subject stays away from third parties unless an allowance says otherwise. */
const FIRST_RESTRICTED = RANK.AMBER!;

export interface Marks {
  tlp: Marking;
  pap: Marking;
}

export interface GateConfig {
  /** Connector id → the most restricted TLP it may receive (INTEL_TLP_ALLOW). */
  tlpAllow: Record<string, Marking>;
  /** Connector id → the most restricted PAP it may receive (INTEL_PAP_ALLOW). */
  papAllow: Record<string, Marking>;
}

function blocks(level: Marking, allowedUpTo: Marking | undefined): boolean {
  return RANK[level]! >= FIRST_RESTRICTED && RANK[level]! > RANK[allowedUpTo ?? "GREEN"]!;
}

/** Which connectors may receive a subject with these marks, and why each other one is skipped. */
export function gate(
  connectors: Connector[],
  marks: Marks,
  config: GateConfig,
): { allowed: Connector[]; skipped: Record<string, SourceOutcome> } {
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
  return { allowed, skipped };
}
