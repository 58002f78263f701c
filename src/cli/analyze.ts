/**
 * `./loupe analyze FILE…`: every files processor on each file, against a running files service
 * (`POST /analyzer/all`) or in this process (`--local`); a readable report or `--json`; with
 * `--intel`, intel's verdicts on the indicators found. Exit code: 0 nothing found malicious,
 * 1 a file was detected by the antivirus, 2 a usage error, 3 a file could not be analysed.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { analyzeWithService, type FilesTarget } from "./analyze/files-client.ts";
import { type IntelTarget, IntelUnavailable, intelVerdicts } from "./analyze/intel.ts";
import type { LocalFiles } from "./analyze/local.ts";
import type { FileReport } from "./analyze/report.ts";
import { readAnalyzeSettings } from "./analyze/settings.ts";
import { textReport } from "./analyze/text.ts";
import { UsageError } from "./usage.ts";

export const ANALYZE_USAGE = `Usage: ./loupe analyze [options] FILE…

Runs every files processor (extractor, antivirus, iocs; rulematch with --rules) on each file.

  --url URL             files service to use (default FILES_URL, else http://127.0.0.1:<FILES_PORT>)
  --local               run the processors in this process instead (no service needed)
  --json                machine output: one JSON object per file, one per line
  --rules FILE          YARA rules to match (rulematch)
  --processors LIST     only these processors, comma-separated
  --private             also report private and reserved addresses and domains
  --password P          a password to try on encrypted archive entries (repeat for more)
  --thumbnails DIR      save a PNG thumbnail of each image file in DIR
  --timeout SECONDS     time allowed per file (default LOUPE_ANALYZE_TIMEOUT_MS)
  --intel               ask intel about the indicators (INTEL_URL, INTEL_API_KEY)
  --intel-url URL       intel service (default INTEL_URL)
  --intel-max N         indicators sent per file at most (default LOUPE_ANALYZE_INTEL_MAX_INDICATORS)
  --intel-timeout SECONDS  time allowed for intel per file (default LOUPE_ANALYZE_INTEL_TIMEOUT_MS)

Exit code: 0 nothing malicious, 1 a file detected by the antivirus, 2 usage error,
3 a file could not be analysed (missing, not a regular file, service unreachable or refusing it).
`;

const OPTIONS = {
  url: { type: "string" },
  local: { type: "boolean" },
  json: { type: "boolean" },
  rules: { type: "string" },
  processors: { type: "string" },
  private: { type: "boolean" },
  password: { type: "string", multiple: true },
  thumbnails: { type: "string" },
  timeout: { type: "string" },
  intel: { type: "boolean" },
  "intel-url": { type: "string" },
  "intel-max": { type: "string" },
  "intel-timeout": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

function parse(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${ANALYZE_USAGE}`);
  }
}

function positive(raw: string | undefined, flag: string, scale = 1): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(n > 0))
    throw new UsageError(`${flag} must be a positive number, got "${raw}"`);
  return Math.round(n * scale);
}

async function filesTarget(values: Values, url: string, timeoutMs: number): Promise<FilesTarget> {
  const fields: Record<string, string> = {};
  if (values.rules !== undefined) {
    fields.rules = await readFile(values.rules, "utf8").catch((err: unknown) => {
      throw new UsageError(`--rules ${values.rules}: ${(err as Error).message}`);
    });
  }
  if (values.processors !== undefined) fields.processors = values.processors;
  if (values.private) fields.private = "true";
  if (values.password?.some((p) => p.includes("\n")))
    throw new UsageError("--password cannot hold a line break");
  if (values.password?.length) fields.passwords = values.password.join("\n");
  return { url: url.replace(/\/+$/, ""), fields, timeoutMs, thumbnails: values.thumbnails };
}

function intelTarget(
  values: Values,
  settings: ReturnType<typeof readAnalyzeSettings>,
): IntelTarget | undefined {
  if (!values.intel) return undefined;
  const apiKey = settings.intelApiKey;
  if (!apiKey)
    throw new UsageError("--intel needs an intel API key in INTEL_API_KEY (./loupe intel token create)");
  return {
    url: (values["intel-url"] ?? settings.intelUrl).replace(/\/+$/, ""),
    apiKey,
    max: positive(values["intel-max"], "--intel-max") ?? settings.intelMaxIndicators,
    timeoutMs: positive(values["intel-timeout"], "--intel-timeout", 1000) ?? settings.intelTimeoutMs,
  };
}

async function addIntel(report: FileReport, target: IntelTarget | undefined): Promise<void> {
  if (!target || !report.analysed) return;
  try {
    report.intel = await intelVerdicts(target, report.indicators);
  } catch (err) {
    if (!(err instanceof IntelUnavailable)) throw err;
    report.intel = [];
    report.failures.push({ processor: "intel", error_short: "intel_unavailable", error: err.message });
  }
}

function exitCode(reports: FileReport[]): number {
  if (reports.some((r) => r.verdict.malicious)) return 1;
  return reports.some((r) => !r.analysed) ? 3 : 0;
}

export async function analyze(args: string[]): Promise<number> {
  const { values, positionals } = parse(args);
  if (values.help) {
    process.stdout.write(ANALYZE_USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError(`no file given\n\n${ANALYZE_USAGE}`);
  if (values.local && values.url) throw new UsageError("--local and --url exclude each other");
  const settings = readAnalyzeSettings(process.env);
  const timeoutMs = positive(values.timeout, "--timeout", 1000) ?? settings.timeoutMs;
  const intel = intelTarget(values, settings);
  let local: LocalFiles | undefined;
  // The whole files service (a thousand modules) is loaded only when it runs here.
  if (values.local) local = await (await import("./analyze/local.ts")).startLocalFiles(process.env);
  try {
    const target = await filesTarget(values, local?.url ?? values.url ?? settings.filesUrl, timeoutMs);
    const reports: FileReport[] = [];
    for (const file of positionals) {
      const report = await analyzeWithService(target, file);
      await addIntel(report, intel);
      process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : textReport(report));
      reports.push(report);
    }
    return exitCode(reports);
  } finally {
    await local?.close();
  }
}
