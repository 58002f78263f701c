/**
 * The source check that runs before YARA-X: what it counts (brackets, unary chains, rules, strings,
 * pattern size and alternatives, imports) and what it must not count (text inside strings,
 * comments, regexes). The engine-side proof is in rulematch.test.ts and test/hostile/yara.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkRules, type RuleLimits } from "../../src/files/processors/rulematch/limits.ts";

const LIMITS: RuleLimits = {
  maxBytes: 100_000,
  maxDepth: 8,
  maxRules: 3,
  maxStrings: 4,
  maxPatternBytes: 64,
  maxAlternatives: 3,
  modules: new Set(["pe", "math"]),
};

const code = (source: string, limits: Partial<RuleLimits> = {}) =>
  checkRules(source, { ...LIMITS, ...limits })?.code;
const nested = (n: number) => `rule a { condition: ${"(".repeat(n)}true${")".repeat(n)} }`;

describe("YARA source limits", () => {
  it("accepts ordinary rules", () => {
    const rules = `import "pe"
rule mz : tag { meta: author = "x" n = -1 strings: $a = "(((((((((" $h = { 4D 5A [2-4] ( 00 | FF ) } $r = /a(b|c)d/i
  condition: ($a or $h) and $r and filesize / 2 > 10 and not (#a == 2) and -1 < 0 and pe.is_pe }`;
    assert.equal(code(rules), undefined);
  });

  it("counts bracket nesting: the limit passes, one more is refused", () => {
    // The rule body's braces count as one level.
    assert.equal(code(nested(7)), undefined);
    assert.equal(code(nested(8)), "rules_too_complex");
    assert.match(checkRules(nested(7000), LIMITS)?.detail ?? "", /RULES_MAX_DEPTH/);
  });

  it("counts chains of unary operators as nesting", () => {
    assert.equal(code(`rule a { condition: ${"not ".repeat(6)}true }`), undefined);
    assert.equal(code(`rule a { condition: ${"not ".repeat(9)}true }`), "rules_too_complex");
    assert.equal(code(`rule a { condition: ${"-".repeat(9)}1 != 7 }`), "rules_too_complex");
    assert.equal(code(`rule a { condition: ${"not (".repeat(5)}true${")".repeat(5)} }`), "rules_too_complex");
  });

  it("counts chains of binary operators as nesting (issue 27 L1), and and/or as no chain", () => {
    // 1 + 1 - 1 …: each operator is a level of the compiler's tree, with or without brackets.
    assert.equal(code(`rule a { condition: ${"1 - ".repeat(5)}1 < 0 }`), undefined);
    assert.equal(code(`rule a { condition: ${"1 + 1 - ".repeat(50)}1 < 0 }`), "rules_too_complex");
    assert.equal(
      code(`rule a { condition: ${"1 * (1 \\ ".repeat(3)}1${")".repeat(3)} > 0 }`),
      "rules_too_complex",
    );
    assert.equal(code(`rule a { condition: 1 ${"| 1 & 1 ".repeat(5)}> 0 }`), "rules_too_complex");
    assert.match(
      checkRules(`rule a { condition: ${"1 + 1 - ".repeat(5000)}1 < 0 }`, LIMITS)?.detail ?? "",
      /chains of binary operators \(FILES_RULES_MAX_DEPTH\)/,
    );
    // A chain ends at and/or, a comma or a colon: long conditions of short comparisons pass.
    const terms = Array.from({ length: 40 }, (_, i) => `uint8(${i}) + 1 == ${i} * 2`);
    assert.equal(code(`rule a { condition: ${terms.join(" and ")} or ${terms.join(" or ")} }`), undefined);
    assert.equal(code(`rule a { condition: for any i in (0..4) : (uint8(i) == 1) }`), undefined);
  });

  it("ignores brackets inside strings, comments and regexes", () => {
    const p = "(".repeat(30);
    const rules = `// ${p}\n/* ${p} */ rule a { meta: x = "${p}" strings: $a = "${p}" condition: $a }`;
    assert.equal(code(rules), undefined);
    assert.equal(code(`rule a { strings: $r = /\\(\\(\\(\\(\\(\\(\\(\\(\\(/ condition: $r }`), undefined);
  });

  it("counts group nesting inside a regex or hex pattern", () => {
    assert.equal(
      code(`rule a { strings: $r = /${"(".repeat(9)}a${")".repeat(9)}/ condition: $r }`),
      "rules_too_complex",
    );
    assert.equal(
      code(`rule a { strings: $h = { ${"( 61 | ".repeat(9)}62${" )".repeat(9)} } condition: $h }`),
      "rules_too_complex",
    );
  });

  it("bounds alternatives and the length of one pattern", () => {
    assert.equal(code("rule a { strings: $r = /a|b|c|d/ condition: $r }"), undefined);
    assert.equal(code("rule a { strings: $r = /a|b|c|d|e/ condition: $r }"), "rules_too_complex");
    assert.equal(
      code("rule a { strings: $r = /x[|||||]y/ condition: $r }"),
      undefined,
      "| in a class is no alternative",
    );
    assert.equal(code(`rule a { strings: $r = /${"a".repeat(65)}/ condition: $r }`), "rules_too_complex");
    assert.equal(code(`rule a { condition: "x" matches /a|b|c|d|e/ }`), "rules_too_complex");
  });

  it("counts rules and string definitions, not string references", () => {
    assert.equal(
      code("rule a { condition: true } private rule b { condition: true } rule c { condition: a }"),
      undefined,
    );
    assert.equal(
      code(
        "rule a { condition: true } rule b { condition: true } rule c { condition: true } rule d { condition: true }",
      ),
      "rules_too_complex",
    );
    assert.equal(
      code(
        'rule a { strings: $a = "1" $b = "2" $c = "3" $d = "4" condition: $a and $b and $c and $d and #a == 1 }',
      ),
      undefined,
    );
    assert.equal(
      code('rule a { strings: $a = "1" $b = "2" $c = "3" $d = "4" $e = "5" condition: any of them }'),
      "rules_too_complex",
    );
  });

  it("refuses a source over the size limit before scanning it", () => {
    assert.equal(code(nested(1), { maxBytes: 10 }), "rules_too_large");
  });

  it("refuses modules outside the allow-list and names the allowed ones", () => {
    assert.equal(code('import "math" rule a { condition: true }'), undefined);
    const refusal = checkRules('import "console" rule a { condition: console.log("x") }', LIMITS);
    assert.equal(refusal?.code, "module_not_allowed");
    assert.match(refusal?.detail ?? "", /"console".*pe, math/);
    // An unknown module is named with the line that imports it.
    const unknown = checkRules('import "pe"\n\nimport "cuckoo"\nrule a { condition: true }', LIMITS);
    assert.match(unknown?.detail ?? "", /^The module "cuckoo" imported at line 3 is not allowed here/);
    assert.equal(code('import "pe"', { modules: new Set() }), "module_not_allowed");
  });
});
