/**
 * Worst-case values for a taxonomy type: strings that make backtracking regex engines explode on
 * its format, cut to the type's cap, each ending where no format can match; and over-cap values.
 */
import type { TypeInfo } from "../../src/intel/model/taxonomy.ts";

/** Strings that make backtracking engines explode on the taxonomy's patterns, cut to the type's cap. */
export function worstCaseValues(t: TypeInfo): string[] {
  const n = t.maxLength;
  const pumps = [
    "1",
    "a",
    "1 ",
    "(1",
    "a.",
    "a-",
    "0:",
    "a/",
    "1.",
    "a@",
    "a%",
    "a[.]",
    "[at]",
    t.example ?? "a",
  ];
  // " !" ends each one: no format allows a space followed by "!".
  const within = pumps.map((p) => `${p.repeat(Math.ceil(n / p.length)).slice(0, n - 2)} !`);
  return [...within, "1".repeat(n + 1), "a".repeat(n + 1)];
}
