/**
 * YARA rule sets for the structure-aware fuzz, grown as syntax trees: conditions nested deep,
 * hex strings with alternations and jumps, regular expressions with stacked quantifiers, string
 * modifiers, many strings and rules, and module imports (known, unknown, and the ones that
 * write or loop). Each tree prints as source; most compile, many are refused — both are fine.
 */
import fc from "fast-check";

const MODULES = [
  "pe",
  "elf",
  "math",
  "hash",
  "console",
  "time",
  "string",
  "dotnet",
  "macho",
  "lnk",
  "magic",
  "cuckoo",
  "nosuch",
];

const hexString = fc
  .tuple(
    fc.array(fc.constantFrom("4D", "5A", "??", "9?", "~00"), { minLength: 1, maxLength: 6 }),
    fc.array(fc.constantFrom("AA", "BB", "CC DD", "??"), { minLength: 1, maxLength: 40 }),
    fc.constantFrom("", "[0-4]", "[-]", "[2-]", "[0-99999999]", "[10-1]"),
  )
  .map(([head, alts, jump]) => `{ ${head.join(" ")} ${jump} ( ${alts.join(" | ")} ) ${head[0]} }`);

const regexString = fc
  .tuple(
    fc.constantFrom(
      "(a+)+",
      "(a|aa)*",
      "(a*)*",
      ".{1,4000}",
      "a{0,65535}",
      "(.*){50}",
      "[^\\x00]+",
      "\\w+\\s*=",
      "(ab|a)*?",
    ),
    fc.constantFrom("b", "$", "c{2,}", "(x|y|z){1,300}", ""),
    fc.constantFrom("", "i", "s", "is"),
  )
  .map(([a, b, flags]) => `/${a}${b}/${flags}`);

const stringDef = fc
  .tuple(
    fc.oneof(
      fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
      hexString,
      regexString,
    ),
    fc.subarray(
      ["nocase", "wide", "ascii", "fullword", "private", "xor", "xor(0-255)", "base64", "base64wide"],
      {
        maxLength: 3,
      },
    ),
  )
  .map(([value, mods]) => (value.startsWith("{") ? value : `${value} ${mods.join(" ")}`));

/** A condition tree of bounded depth over strings $s0…$sN. */
function condition(strings: number): fc.Arbitrary<string> {
  const ref = (i: number) => `$s${i % Math.max(1, strings)}`;
  const leaf = fc.oneof(
    fc.constantFrom("true", "false", "filesize < 1MB", "uint16(0) == 0x5A4D"),
    fc.nat(50).map((i) => (strings > 0 ? ref(i) : "true")),
    fc.nat(50).map((i) => (strings > 0 ? `#${ref(i).slice(1)} > ${i}` : "true")),
    fc.constantFrom(
      "math.entropy(0, filesize) > 7",
      "pe.number_of_sections > 1",
      'hash.md5(0, filesize) == "x"',
      'console.log("x")',
      "for all i in (0..filesize) : ( uint8(i) == 0 )",
      "time.now() > 0",
    ),
  );
  const tree = fc.letrec<{ c: string }>((tie) => ({
    c: fc.oneof(
      { depthSize: "small" },
      leaf,
      tie("c").map((c) => `not ${c}`),
      fc.tuple(tie("c"), fc.constantFrom("and", "or"), tie("c")).map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie("c").map((c) => `for any of them : ( ${c} )`),
    ),
  }));
  return fc
    .tuple(tree.c, fc.constantFrom(0, 0, 10, 500, 5000, 20_000))
    .map(([c, depth]) => `${"(".repeat(depth)}${c}${")".repeat(depth)}`);
}

const rule = fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constantFrom(60, 300)).chain((n) =>
  fc
    .tuple(fc.array(stringDef, { minLength: n, maxLength: n }), condition(n), fc.nat(1000))
    .map(([strings, cond, id]) => {
      const defs = strings.length ? ` strings: ${strings.map((s, i) => `$s${i} = ${s}`).join(" ")}` : "";
      return `rule r${id}_${n} {${defs} condition: ${cond} }`;
    }),
);

export const ruleSet: fc.Arbitrary<string> = fc
  .tuple(fc.subarray(MODULES, { maxLength: 4 }), fc.array(rule, { minLength: 1, maxLength: 4 }), fc.nat(3))
  .map(([modules, rules, dup]) => {
    const imports = modules.map((m) => `import "${m}"`).join("\n");
    // The same rule twice (a duplicate identifier) now and then.
    const body = dup === 0 ? [...rules, rules[0]!] : rules;
    return `${imports}\n${body.join("\n")}`;
  });
