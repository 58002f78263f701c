/**
 * Per-scan cost inside the YARA-X WebAssembly binding, without HTTP or workers: a new scanner per
 * scan versus one reused scanner, on a 289-byte and a 100 KB file. Run:
 * `node --disable-warning=ExperimentalWarning bench/rulematch/binding.ts`.
 */
import { readFileSync } from "node:fs";
import { Compiler, initSync, type Rules } from "@virustotal/yara-x";

initSync({ module: readFileSync(new URL("yara_x_js_bg.wasm", import.meta.resolve("@virustotal/yara-x"))) });

function perScanMs(scan: () => void, rounds: number): number {
  for (let i = 0; i < 5; i++) scan();
  const started = performance.now();
  for (let i = 0; i < rounds; i++) scan();
  return (performance.now() - started) / rounds;
}

function report(rules: Rules, size: number): void {
  const data = new Uint8Array(size).fill(0x61);
  const fresh = perScanMs(() => {
    const s = rules.scanner();
    s.scan(data);
    s.free();
  }, 100);
  const scanner = rules.scanner();
  const reused = perScanMs(() => scanner.scan(data), 100);
  scanner.free();
  const create = perScanMs(() => rules.scanner().free(), 1000);
  console.log(
    `${size} B: new scanner per scan ${fresh.toFixed(3)} ms, reused scanner ${reused.toFixed(3)} ms, scanner() alone ${create.toFixed(4)} ms`,
  );
}

const source = Array.from(
  { length: 20 },
  (_, i) =>
    `rule r${i} { strings: $a = "needle${i}" $h = { 4D 5A ?? ?? [2-6] 50 45 } $r = /callback-${i}\\.[a-z]{3,8}/ condition: any of them }`,
).join("\n");
const compiler = new Compiler();
compiler.addSource(source);
const rules = compiler.build();
for (const size of [289, 100_000]) report(rules, size);
