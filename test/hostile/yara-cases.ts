/**
 * Pathological YARA rule sets, built here (no blobs): each names the answers that are acceptable
 * — a 400 refusal before compiling, or a 200 whose rulematch entry carries an error.
 * A case is fine when the answer is one of those and the service still scans afterwards.
 */

export interface YaraCase {
  name: string;
  rules: string;
  /** The scanned file (defaults to a small text). */
  file?: Uint8Array | string;
  /** Acceptable outcomes: `400:<code>` or `200:<error_short>`, or `200:ok` for a clean scan. */
  accept: string[];
}

const parens = (n: number) => `rule a { condition: ${"(".repeat(n)}true${")".repeat(n)} }`;

export const YARA_CASES: YaraCase[] = [
  {
    // Issue 12 item 4: overflows the WASM stack; every later scan failed with "memory access out of bounds".
    name: "7000 nested parentheses",
    rules: parens(7000),
    accept: ["400:rules_too_complex", "200:engine_error"],
  },
];

/** An ordinary rule set and the file it matches: what a caller does after an attack. */
export const ORDINARY_RULES = 'rule ordinary : probe { strings: $a = "loupe-probe" condition: $a }';
export const ORDINARY_FILE = "a file with loupe-probe inside";
