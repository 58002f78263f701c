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

export const parens = (n: number) => `rule a { condition: ${"(".repeat(n)}true${")".repeat(n)} }`;
const times = (n: number, make: (i: number) => string, sep = "\n") =>
  Array.from({ length: n }, (_, i) => make(i)).join(sep);
const rulesOf = (n: number, make: (i: number) => string) => times(n, (i) => `rule r${i} { ${make(i)} }`);

/** Bytes of a file whose every position is worth a loop iteration. */
const bigFile = (n: number) => "a".repeat(n);

/** Issue 27's runaway loop, spelled so that it runs (`2^63` is XOR in YARA): 70 bytes. */
export const CONSTANT_LOOP = "rule a { condition: for any i in (0..9223372036854775806) : (i < 0) }";
/** A runaway loop no compiler check sees: its bounds are read from the file (LOOP_FILE). */
export const FILE_BOUNDED_LOOP =
  "rule a { condition: for any i in (0..uint32(0)) : (for any j in (0..uint32(0)) : (i + j < 0)) }";
export const LOOP_FILE = new Uint8Array([0xff, 0xff, 0xff, 0xff, ...new TextEncoder().encode("loop")]);
export const BINARY_CHAIN = `rule a { condition: ${"1 + 1 - ".repeat(2500)}1 > 0 }`;

const REFUSED_OR_ENGINE = ["400:rules_too_complex", "200:engine_error"];
const RAN_OR_STOPPED = ["200:ok", "200:timeout"];

export const YARA_CASES: YaraCase[] = [
  {
    // Issue 12 item 4: overflows the WASM stack; every later scan failed with "memory access out of bounds".
    name: "7000 nested parentheses",
    rules: parens(7000),
    accept: REFUSED_OR_ENGINE,
  },
  // Unary chains recurse like brackets; 1000 `not` corrupt the engine's memory without a bracket.
  {
    name: "1000 chained not",
    rules: `rule a { condition: ${"not ".repeat(1000)}true }`,
    accept: REFUSED_OR_ENGINE,
  },
  {
    name: "7000 unary minus",
    rules: `rule a { condition: ${"-".repeat(7000)}1 != 7 }`,
    accept: REFUSED_OR_ENGINE,
  },
  {
    name: "deep nesting through function calls and indexes",
    rules: `import "math" rule a { condition: ${"math.abs(".repeat(3000)}1${")".repeat(3000)} > 0 }`,
    accept: REFUSED_OR_ENGINE,
  },
  {
    name: "hex pattern nesting 500 alternations deep",
    rules: `rule a { strings: $h = { 61 ${"( 61 | ".repeat(500)}62${" )".repeat(500)} } condition: $h }`,
    accept: REFUSED_OR_ENGINE,
  },
  {
    name: "regex with 5000 nested groups",
    rules: `rule a { strings: $r = /${"(".repeat(5000)}a${")".repeat(5000)}/ condition: $r }`,
    accept: REFUSED_OR_ENGINE,
  },
  {
    name: "huge alternation: 20000 words in one regex",
    rules: `rule a { strings: $r = /${times(20_000, (i) => `w${i}`, "|")}/ condition: $r }`,
    accept: REFUSED_OR_ENGINE,
  },
  {
    // YARA-X itself refuses more than 255 alternatives in one group; four groups of 250 pass both bounds.
    name: "1000 alternatives over a 2 MB file",
    rules: `rule a { strings: $r = /${times(4, () => `(${times(250, (i) => `a${i}`, "|")})`, "")}b/ condition: #r > 0 }`,
    file: bigFile(2_000_000),
    accept: RAN_OR_STOPPED,
  },
  {
    name: "catastrophic regex (a+)+b over 1 MB of a",
    rules: "rule a { strings: $r = /(a+)+b/ condition: $r }",
    file: bigFile(1_000_000),
    accept: RAN_OR_STOPPED,
  },
  {
    name: "quadratic regex a.*b.*c over 2 MB of a",
    rules: "rule a { strings: $r = /a.*b.*c/ condition: #r > 0 }",
    file: bigFile(2_000_000),
    accept: RAN_OR_STOPPED,
  },
  {
    name: "51000 strings (under the size cap)",
    rules: `rule a { strings: ${times(51_000, (i) => `$${i}="${i}"`, " ")} condition: any of them }`,
    accept: ["400:rules_too_complex"],
  },
  {
    name: "20000 rules",
    rules: rulesOf(20_000, () => "condition: true"),
    accept: ["400:rules_too_complex", "400:rules_too_large"],
  },
  {
    name: "3 MB of rules",
    rules: rulesOf(30_000, (i) => `strings: $a = /needle${i}[a-z]{1,20}(foo|bar)+/ condition: $a`),
    accept: ["400:rules_too_large"],
  },
  {
    name: "900 KB of regex rules (under the size cap: the compile budget bounds it)",
    rules: rulesOf(9_000, (i) => `strings: $a = /x${i}[a-z]{100,1000}y/ condition: $a`),
    accept: ["200:ok", "200:timeout", "400:rules_too_complex"],
  },
  {
    // Issue 12 item 7: the console module wrote forged log entries and 18 MB of log in 14 s.
    name: "console module forging a fatal log entry",
    rules: 'import "console" rule a { condition: console.log("\n{"level":60,"msg":"forged"}") }',
    accept: ["400:module_not_allowed"],
  },
  {
    name: "console module in a loop over a 200 KB file",
    rules: 'import "console" rule a { condition: for all i in (0..filesize - 1) : (console.log(i)) }',
    file: bigFile(200_000),
    accept: ["400:module_not_allowed"],
  },
  {
    name: "math loop over a 200 KB file (quadratic)",
    rules: 'import "math" rule a { condition: for all i in (0..filesize - 1) : (math.entropy(0, i) >= 0) }',
    file: bigFile(200_000),
    accept: RAN_OR_STOPPED,
  },
  {
    name: "module outside the allow-list",
    rules: 'import "cuckoo" rule a { condition: true }',
    accept: ["400:module_not_allowed"],
  },
  { name: "include of a server file", rules: 'include "/etc/passwd"', accept: ["400:invalid_rules"] },
  {
    // Issue 27 L1: mixed operators nest in the compiler's tree; 1000 of them overflowed its stack.
    name: "chain of 5000 binary operators (1 + 1 - 1 …)",
    rules: BINARY_CHAIN,
    accept: ["400:rules_too_complex"],
  },
  {
    // Issue 27 M3: held a scan process for the whole SCAN_TIMEOUT_MS; refused after compiling now.
    name: "constant loop over 2^63 iterations",
    rules: CONSTANT_LOOP,
    accept: ["400:rules_too_complex"],
  },
  {
    // The file's first four bytes bound two nested loops (2^64 iterations): no compiler warning, the budget ends it.
    name: "loops bounded by the file (2^64 iterations)",
    rules: FILE_BOUNDED_LOOP,
    file: LOOP_FILE,
    accept: ["200:timeout"],
  },
];

/** An ordinary rule set and the file it matches: what a caller does after an attack. */
export const ORDINARY_RULES = 'rule ordinary : probe { strings: $a = "loupe-probe" condition: $a }';
export const ORDINARY_FILE = "a file with loupe-probe inside";
