/**
 * The YARA inputs of `bench compare`, shared with the engines' oracle test: 7 rule files of
 * ≈1–2 KB and 16 small samples that some of them match, generated from fixed seeds so every run
 * sees the same bytes.
 */

export interface RuleCase {
  name: string;
  rules: string;
  sample: Buffer;
}

/** mulberry32: a tiny seeded generator, so inputs are the same on every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["beacon", "callback", "payload", "stager", "implant", "exfil", "dropper", "loader"];

/** One rule file of ≈1–2 KB: literals, nocase, wide, hex with jumps, regular expressions, counts. */
function ruleFile(family: number): string {
  const rules: string[] = [];
  for (let i = 0; i < 8; i++) {
    const word = WORDS[(family + i) % WORDS.length] ?? "beacon";
    const id = `f${family}_r${i}`;
    const hex = ((family * 8 + i) % 200) + 32;
    const hexByte = hex.toString(16).padStart(2, "0").toUpperCase();
    rules.push(
      `rule ${id} : fam${family} {
  meta: author = "bench" score = ${i * 10} active = ${i % 2 === 0}
  strings:
    $a = "${word}-${family}-${i}"
    $b = "${word.toUpperCase()}.${i}" nocase
    $c = { 4C 4F [1-4] ${hexByte} ?? 45 }
    $d = /${word}\\.[a-z]{3,6}\\.example/
  condition: ${["any of them", "$a or ($b and $c) or $d", "#d >= 1 or any of ($a, $b, $c)", "filesize < 4096 and 1 of ($a, $b, $c, $d)"][i % 4]}
}`,
    );
  }
  return rules.join("\n");
}

/** A sample of ≤ 4 KB: seeded bytes with some indicators of the rule families written in. */
function sample(index: number): Buffer {
  const rand = seeded(1000 + index);
  const size = 512 + Math.floor(rand() * 3500);
  const buf = Buffer.alloc(size);
  for (let i = 0; i < size; i++) buf[i] = Math.floor(rand() * 256);
  const marks = index % 4;
  for (let m = 0; m < marks; m++) {
    const family = Math.floor(rand() * 7);
    const i = Math.floor(rand() * 8);
    const word = WORDS[(family + i) % WORDS.length] ?? "beacon";
    const text =
      [`${word}-${family}-${i}`, `${word}.abcd.example`, `xx${word.toUpperCase()}.${i}yy`][m % 3] ?? "";
    buf.write(text, Math.floor(rand() * (size - 40)), "latin1");
  }
  return buf;
}

/** 7 rule files × 16 samples: every pair is one request. */
export function ruleCases(): RuleCase[] {
  const files = Array.from({ length: 7 }, (_, f) => ruleFile(f));
  const samples = Array.from({ length: 16 }, (_, s) => sample(s));
  return files.flatMap((rules, f) =>
    samples.map((s, i) => ({ name: `rules${f}-sample${i}`, rules, sample: s })),
  );
}
