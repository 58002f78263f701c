/**
 * TLP and PAP levels (FIRST's 2.0), and how entities store them: the vocabulary the settings, the
 * store's callers and the doors share. Which vendor may receive what is a domain rule (domain/markings.ts).
 */
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
