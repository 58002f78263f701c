/**
 * Extraction: a 200-page PDF written by LibreOffice, Loupe (HTTP to a files server in a child
 * process, and the worker's function in-process) versus poppler's `pdftotext`; a long DOCX
 * versus `soffice --convert-to txt`; text similarity to the baseline and to the words written;
 * then the server's peak RSS while it extracts a ~200 MB PDF. BENCH_EXTRACT_AGAINST=<checkout> runs that
 * checkout's server beside this one on the PDF (an A/B in one session).
 */
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import run, { type ExtractResult } from "../../src/files/processors/extractor/worker.ts";
import { fmt, memoryOf, percentiles } from "../lib/measure.ts";
import { multipartBody, postPrepared } from "../lib/multipart.ts";
import { type ChildServer, startChildServer } from "../lib/server.ts";
import { LibreOffice, longReportHtml, makeBigPdf, makeReport } from "./documents.ts";
import { similarity } from "./similarity.ts";

const exec = promisify(execFile);
const PAGES = Number(process.env.BENCH_EXTRACT_PAGES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BIG_MB = Number(process.env.BENCH_EXTRACT_BIG_MB ?? 200);
/**
 * Another checkout (a worktree of main, say) whose files server runs beside this one's on the PDF,
 * in the same alternating rounds: a change and its base measured in one session.
 */
const AGAINST = process.env.BENCH_EXTRACT_AGAINST;
/** The servers of the small-document runs (the limits given in the environment are for the big PDF). */
const SMALL_RUN_ENV = {
  CLAMD_SOCKET: "/nonexistent",
  EXTRACT_MEMORY_MB: "1024",
  EXTRACT_TIMEOUT_MS: "120000",
};
const LIMITS = { maxChars: 10_000_000, maxDepth: 3, maxArchiveBytes: 500_000_000, maxArchiveEntries: 10_000 };

interface Entry {
  success: boolean;
  error_short?: string;
  error?: string;
  analysis?: { type: string; extra: { pdf?: { page_count?: number } } };
}
interface Answer {
  content: string;
  processors: { extractor: Entry };
}

const timed = async <T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const t = performance.now();
  const value = await f();
  return { ms: performance.now() - t, value };
};

function inProcess(file: string): Promise<string> {
  return run({
    path: file,
    filename: path.basename(file),
    limits: LIMITS,
    deadline: Date.now() + 600_000,
  }).then((r: ExtractResult) => {
    if (!r.ok) throw new Error(`in-process extraction failed: ${r.error}`);
    return r.content;
  });
}

async function overHttp(url: string, file: string): Promise<Answer> {
  const upload = multipartBody(await readFile(file), path.basename(file));
  const answer = (await postPrepared(`${url}/analyzer/extractor`, upload)) as Answer;
  const entry = answer.processors.extractor;
  if (!entry.success) throw new Error(`extraction failed: ${entry.error_short} ${entry.error}`);
  return answer;
}

interface SideResult {
  ms: number;
  median: number;
  text: string;
}

/** Runs every side once to warm it, then `ROUNDS` alternating rounds; keeps each side's best and median. */
async function bestOf(sides: Record<string, () => Promise<string>>): Promise<Record<string, SideResult>> {
  const best: Record<string, SideResult> = {};
  const times: Record<string, number[]> = {};
  for (const [name, side] of Object.entries(sides)) {
    best[name] = { ms: Number.POSITIVE_INFINITY, median: 0, text: await side() };
    times[name] = [];
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, side] of Object.entries(sides)) {
      const { ms, value } = await timed(side);
      times[name]?.push(ms);
      const b = best[name] as SideResult;
      if (ms < b.ms) best[name] = { ...b, ms, text: value };
    }
  }
  for (const [name, b] of Object.entries(best)) b.median = percentiles(times[name] ?? []).p50;
  return best;
}

function report(
  what: string,
  baselineName: string,
  results: Record<string, SideResult>,
  written: string,
  targets: { ratio: number; similarity: number },
): void {
  const base = results.baseline as SideResult;
  const http = results.http as SideResult;
  const direct = results.direct as SideResult;
  console.log(`${what}:`);
  const line = (name: string, side: SideResult) =>
    `  ${name.padEnd(22)}: best ${fmt(side.ms)} ms, median ${fmt(side.median)} ms`;
  const ratios = (side: SideResult) =>
    `best ${fmt(side.ms / base.ms, 2)}×, median ${fmt(side.median / base.median, 2)}×`;
  console.log(line(baselineName, base));
  console.log(`${line("Loupe HTTP", http)} → ${ratios(http)} (target ≤ ${targets.ratio}×)`);
  console.log(`${line("Loupe in-process", direct)} → ${ratios(direct)}`);
  const vsBase = similarity(http.text, base.text);
  const loupeVsWritten = similarity(http.text, written);
  const baseVsWritten = similarity(base.text, written);
  console.log(
    `  similarity Loupe ↔ ${baselineName}: words ${fmt(vsBase.words, 4)} (target ≥ ${targets.similarity}), word pairs ${fmt(vsBase.bigrams, 4)}; ${vsBase.counts[0]} vs ${vsBase.counts[1]} words`,
  );
  console.log(
    `  against the words written: Loupe ${fmt(loupeVsWritten.words, 4)} / pairs ${fmt(loupeVsWritten.bigrams, 4)}, ${baselineName} ${fmt(baseVsWritten.words, 4)} / pairs ${fmt(baseVsWritten.bigrams, 4)}`,
  );
}

async function startAgainst(): Promise<ChildServer | null> {
  if (!AGAINST) return null;
  // That checkout's own helper starts its `src/cli/main.ts` from its ROOT, which `./loupe` sets for
  // this one through LOUPE_ROOT: the helper's modules must be loaded, and the server run, with it
  // pointing there.
  const root = path.resolve(AGAINST);
  const ours = process.env.LOUPE_ROOT;
  process.env.LOUPE_ROOT = root;
  try {
    const helper = path.join(root, "test/helpers/child-server.ts");
    const { startChildServer: start } = (await import(helper)) as {
      startChildServer: typeof startChildServer;
    };
    return await start(["files", "serve"], { ...SMALL_RUN_ENV, LOUPE_ROOT: root });
  } finally {
    if (ours === undefined) delete process.env.LOUPE_ROOT;
    else process.env.LOUPE_ROOT = ours;
  }
}

function reportAgainst(results: Record<string, SideResult>, written: string): void {
  const base = results.baseline as SideResult;
  const other = results.against as SideResult;
  const http = results.http as SideResult;
  const vsWritten = similarity(other.text, written);
  console.log(
    `  HTTP of ${AGAINST}: best ${fmt(other.ms)} ms, median ${fmt(other.median)} ms → best ${fmt(other.ms / base.ms, 2)}×, median ${fmt(other.median / base.median, 2)}× (this tree / that one: best ${fmt(http.ms / other.ms, 2)}, median ${fmt(http.median / other.median, 2)}); against the words written ${fmt(vsWritten.words, 4)} / pairs ${fmt(vsWritten.bigrams, 4)}`,
  );
}

/** The text of the generated HTML, as a reader would see it (the <title> is metadata, not body text). */
function writtenText(html: string): string {
  return html
    .replace(/<title>[^<]*<\/title>/, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&");
}

async function bigPdfMemory(dir: string): Promise<void> {
  const file = path.join(dir, "big.pdf");
  const made = await timed(() => makeBigPdf(file, BIG_MB));
  const size = (await stat(file)).size;
  const pages = /Pages:\s+(\d+)/.exec((await exec("pdfinfo", [file])).stdout)?.[1];
  const poppler = await timed(() => exec("pdftotext", ["-enc", "UTF-8", file, "-"], { maxBuffer: 1 << 28 }));
  console.log(
    `\n${fmt(size / 1048576)} MB PDF (${pages} pages, JPEG images and text, written in ${fmt(made.ms / 1000)} s); pdftotext reads it in ${fmt(poppler.ms)} ms`,
  );
  const memory = process.env.EXTRACT_MEMORY_MB ?? "1024";
  const timeout = process.env.EXTRACT_TIMEOUT_MS ?? "120000";
  const server = await startChildServer(["files", "serve"], {
    MAX_FILE_SIZE: String(size + 10_000_000),
    EXTRACT_MEMORY_MB: memory,
    EXTRACT_TIMEOUT_MS: timeout,
    CLAMD_SOCKET: "/nonexistent",
  });
  try {
    const upload = multipartBody(await readFile(file), "big.pdf");
    await new Promise((r) => setTimeout(r, 500));
    const idle = memoryOf(server.pid);
    let peak = idle.rssMb;
    const sampler = setInterval(() => {
      peak = Math.max(peak, memoryOf(server.pid).rssMb);
    }, 10);
    const answer = await timed(
      async () => (await postPrepared(`${server.url}/analyzer/extractor`, upload)) as Answer,
    );
    clearInterval(sampler);
    const hwm = memoryOf(server.pid).peakMb;
    const entry = answer.value.processors.extractor;
    const outcome = entry.success
      ? `succeeded: ${entry.analysis?.extra.pdf?.page_count} pages, ${answer.value.content.length} characters, words vs pdftotext ${fmt(similarity(answer.value.content, poppler.value.stdout).words, 4)}`
      : `did not finish: ${entry.error_short} — ${entry.error}`;
    console.log(
      `  server RSS idle ${fmt(idle.rssMb)} MB → peak ${fmt(Math.max(peak, hwm))} MB (sampled every 10 ms ${fmt(peak)} MB, VmHWM ${fmt(hwm)} MB); EXTRACT_MEMORY_MB=${memory}, EXTRACT_TIMEOUT_MS=${timeout}`,
    );
    console.log(`  extraction over HTTP ${outcome}, in ${fmt(answer.ms)} ms`);
  } finally {
    await server.stop();
  }
}

function onPath(tool: string): boolean {
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, tool), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The producer and the baselines are Debian programs; say which package is missing rather than fail later. */
function missingTools(): string[] {
  const tools = { soffice: "libreoffice-writer-nogui", pdftotext: "poppler-utils", pdfinfo: "poppler-utils" };
  return Object.entries(tools)
    .filter(([tool]) => !onPath(tool))
    .map(([tool, pkg]) => `${tool} (Debian package ${pkg})`);
}

async function main(): Promise<void> {
  const missing = missingTools();
  if (missing.length > 0) {
    console.error(`bench extract needs ${missing.join(", ")}`);
    process.exitCode = 1;
    return;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-bench-extract-"));
  try {
    console.log(
      `extraction benchmark — ${os.cpus().length} cores, best of ${ROUNDS} alternating rounds per side`,
    );
    const office = new LibreOffice(dir);
    const made = await timed(() => makeReport(dir, PAGES, office));
    const { pdf, docx } = made.value;
    const written = writtenText(longReportHtml(PAGES));
    const server = await startChildServer(["files", "serve"], SMALL_RUN_ENV);
    const against = await startAgainst();
    try {
      const pdfPages = (await overHttp(server.url, pdf)).processors.extractor.analysis?.extra.pdf?.page_count;
      console.log(
        `LibreOffice wrote a ${pdfPages}-page PDF (${fmt((await stat(pdf)).size / 1024)} KB) and a DOCX (${fmt((await stat(docx)).size / 1024)} KB) from the same HTML in ${fmt(made.ms / 1000)} s\n`,
      );
      const pdfResults = await bestOf({
        baseline: async () =>
          (await exec("pdftotext", ["-enc", "UTF-8", pdf, "-"], { maxBuffer: 1 << 26 })).stdout,
        http: async () => (await overHttp(server.url, pdf)).content,
        ...(against ? { against: async () => (await overHttp(against.url, pdf)).content } : {}),
        direct: () => inProcess(pdf),
      });
      report(`PDF, ${pdfPages} pages`, "pdftotext", pdfResults, written, { ratio: 2, similarity: 0.95 });
      if (pdfResults.against) reportAgainst(pdfResults, written);

      const txtDir = path.join(dir, "txt");
      const docxResults = await bestOf({
        baseline: async () => readFile(await office.convert(docx, "txt:Text (encoded):UTF8", txtDir), "utf8"),
        http: async () => (await overHttp(server.url, docx)).content,
        direct: () => inProcess(docx),
      });
      report("DOCX", "soffice --convert-to txt", docxResults, written, { ratio: 2, similarity: 0.95 });
    } finally {
      await server.stop();
      await against?.stop();
    }
    await bigPdfMemory(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
