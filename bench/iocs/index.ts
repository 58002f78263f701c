/**
 * Indicators: precision and recall on the labelled set (test/fixtures/iocs: text, HTML, e-mail,
 * DOCX and PDF with planted indicators and decoys), per kind and overall; with `--corpus=DIR`,
 * recall on real published reports (a corpus built by corpus.ts, kept outside the repository), per
 * source, with the misses by shape; then the scan's speed on 10 MB of report-like prose and on
 * hostile floods. Targets: precision ≥ 0.95 and recall ≥ 0.9 on the set, recall ≥ 0.98 on reports.
 */
import { extractIocs } from "../../src/files/iocs/extract.ts";
import { scoreSet } from "../../test/helpers/iocs-set.ts";
import { type Miss, type SourceScore, scoreCorpus } from "./real.ts";

const OPTIONS = { maxChars: 100_000_000, maxIndicators: 5000, maxTokenChars: 4096, maxLocations: 20 };
const MB = Number(process.env.BENCH_IOCS_MB ?? 10);
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
/** Recall on reports: two decimals, so 99.99 % does not print as 100 %. */
const pct2 = (x: number) => `${(x * 100).toFixed(2)} %`;

async function quality(): Promise<boolean> {
  const r = await scoreSet();
  console.log(`labelled set: ${r.files.length} documents, ${r.labelled} indicators, ${r.decoys} decoys\n`);
  console.log("kind            TP  FP  FN  precision  recall");
  for (const [kind, s] of Object.entries(r.byKind))
    console.log(
      `${kind.padEnd(14)} ${String(s.truePositives).padStart(3)} ${String(s.falsePositives).padStart(3)} ${String(s.falseNegatives).padStart(3)}  ${pct(s.precision).padStart(9)}  ${pct(s.recall).padStart(7)}`,
    );
  const o = r.overall;
  console.log(
    `${"overall".padEnd(14)} ${String(o.truePositives).padStart(3)} ${String(o.falsePositives).padStart(3)} ${String(o.falseNegatives).padStart(3)}  ${pct(o.precision).padStart(9)}  ${pct(o.recall).padStart(7)}`,
  );
  for (const f of r.files)
    if (f.falsePositives.length || f.missed.length)
      console.log(
        `  ${f.file}: false positives ${JSON.stringify(f.falsePositives)}, missed ${JSON.stringify(f.missed)}`,
      );
  return o.precision >= 0.95 && o.recall >= 0.9;
}

const REPORT_RECALL = 0.98;

function printSource(s: SourceScore): void {
  console.log(
    `\n${s.source} (${s.repository} at ${s.commit?.slice(0, 12) ?? "a directory"}; ${s.licence})\n` +
      `  ${s.reports} reports, ${s.listed} listed indicators, ${s.inProse} named in the prose, ` +
      `${s.found} found: recall ${pct2(s.found / Math.max(s.inProse, 1))}`,
  );
  const kinds = Object.entries(s.byKind).sort((a, b) => b[1][0] - a[1][0]);
  console.log(
    `  by kind (found/named): ${kinds.map(([k, [named, found]]) => `${k} ${found}/${named}`).join(", ")}`,
  );
  const byShape = new Map<string, Miss[]>();
  for (const m of s.misses) byShape.set(m.shape, [...(byShape.get(m.shape) ?? []), m]);
  for (const [shape, misses] of [...byShape].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  missed ${String(misses.length).padStart(4)}  ${shape}`);
    for (const m of misses.slice(0, 3)) console.log(`            ${m.report}: ${m.value}  ← ${m.line}`);
  }
  const unlisted = Object.entries(s.unlisted).map(([kind, v]) => `${kind} ${v.length}`);
  console.log(`  found but not in the source's lists (not all wrong): ${unlisted.join(", ") || "none"}`);
}

function reports(dir: string): boolean {
  const scores = scoreCorpus(dir);
  console.log(`\nreal reports in ${dir}`);
  for (const s of scores) printSource(s);
  const inProse = scores.reduce((n, s) => n + s.inProse, 0);
  const found = scores.reduce((n, s) => n + s.found, 0);
  const recall = found / Math.max(inProse, 1);
  console.log(
    `\nall sources: ${found} of ${inProse} listed indicators named in the prose: recall ${pct2(recall)}`,
  );
  return recall >= REPORT_RECALL;
}

function speed(): void {
  const n = MB * 1_000_000;
  const para =
    "The actor used hxxp://evil-domain[.]com/gate.php and 45.77.1.2 (version 1.2.3.4), dropped report.pdf and C:\\Users\\Public\\a.exe; contact +33 1 23 45 67 89. Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n";
  const cases: Record<string, string> = {
    "report prose": para.repeat(Math.ceil(n / para.length)).slice(0, n),
    "defang flood [.]": "[.]".repeat(n / 3),
    "phone flood +1 ": "+1 ".repeat(n / 3),
    "path flood C:\\a b\\": "C:\\a b\\".repeat(n / 7),
    "distinct reserved hosts": Array.from({ length: n / 16 }, (_, i) => `h${i}.example.net`).join(" "),
    "one long token": "a".repeat(n),
    "host/path? list lines": "x-dmt[.]net/index.php?\n".repeat(n / 24),
    "++passthrough++ and ----": "++a.com|1.2.3.4++\n----\n".repeat(n / 23),
  };
  console.log(`\nscan speed (${MB} MB each, in-process, one thread)`);
  for (const [name, text] of Object.entries(cases)) {
    const t = performance.now();
    const r = extractIocs([{ part: "content", text }], OPTIONS);
    const ms = performance.now() - t;
    console.log(
      `${name.padEnd(24)} ${ms.toFixed(0).padStart(6)} ms  ${(text.length / 1e6 / (ms / 1000)).toFixed(1).padStart(5)} MB/s  ${r.indicators.length} indicators${r.truncated ? ` (${r.truncated})` : ""}`,
    );
  }
}

// `./loupe bench` hands flags on and takes bare words for benchmark names: hence "--corpus=DIR".
const corpus =
  process.argv.find((a) => a.startsWith("--corpus="))?.slice("--corpus=".length) ??
  process.env.BENCH_IOCS_CORPUS;
const ok = await quality();
const reportsOk = corpus ? reports(corpus) : true;
speed();
if (!ok || !reportsOk) {
  console.log(`\nbelow target (set: precision ≥ 0.95, recall ≥ 0.9; reports: recall ≥ ${REPORT_RECALL})`);
  process.exitCode = 1;
}
