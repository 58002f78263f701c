/**
 * TLP and PAP (FIRST's 2.0 levels) and the gate they put before third-party vendors: a subject
 * marked AMBER, AMBER+STRICT or RED is never sent to a connector whose `disclosure` is
 * "third_party", unless INTEL_TLP_ALLOW / INTEL_PAP_ALLOW allow that connector up to that level.
 * The marks that count are sticky: the stricter of the ask's and the subject's stored ones.
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

/** A stored spelling as a level (WHITE is CLEAR; an unknown word reads as the strictest, RED). */
export const fromStored = (stored: string): Marking => MARKINGS[RANK[stored.toUpperCase()] ?? 4]!;

/** The more restricted of two levels. */
export const stricter = (a: Marking, b: Marking): Marking => (RANK[a]! >= RANK[b]! ? a : b);

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
  return RANK[level]! >= FIRST_RESTRICTED && RANK[level]! > RANK[allowedUpTo ?? "GREEN"]!;
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
