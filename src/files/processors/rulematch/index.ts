/**
 * `POST /analyzer/rulematch`: the caller's YARA rules, bounded by a linear check of the source
 * (400 before any compiling; run in the worker, as a megabyte of source takes tens of ms), then
 * compiled by YARA-X's WebAssembly build in a pool of worker threads (the authority for errors and
 * warnings) and scanned by the native YARA-X build in sandbox processes, or by the WebAssembly
 * build where the native one cannot answer (engines.ts). A scan past its budget (a base plus a
 * share per MB of the file, FILES_SCAN_TIMEOUT_MS at most) is ended by killing its process or terminating
 * its worker (YARA-X's own timeout cannot interrupt WebAssembly, the native binding has none). One
 * client (remote address) holds at most FILES_RULES_CLIENT_SHARE of the workers (share.ts).
 */
import { readFileSync } from "node:fs";
import { Type } from "typebox";
import { badRequest } from "../../../common/errors.ts";
import type { FilesConfig } from "../../config.ts";
import { poolRecoveries, poolState } from "../../sandbox/pool.ts";
import { ClientShare } from "../../sandbox/share.ts";
import type { InMemoryFile, UploadedFile } from "../../upload.ts";
import { passwordsFieldSchema } from "../extractor/passwords-field.ts";
import {
  type Processor,
  type ProcessorContext,
  ProcessorFailure,
  type ProcessorOutput,
} from "../processor.ts";
import { type NodeScanResult, type ScanChild, scanChildren } from "../rulematch-tree.ts";
import { rulematchAnalysis, rulematchMetadata } from "../schemas.ts";
import type { Walker } from "../tree/walk.ts";
import type { Finding } from "../verdict.ts";
import { RuleScanner } from "./engines.ts";
import type { ScanInput } from "./input.ts";
import type { RuleLimits } from "./limits.ts";
import { NativeEngine, nativeVersion } from "./native/engine.ts";
import { YaraPool } from "./pool.ts";

const MB = 1024 * 1024;
/** Worker threads and native scan processes kept started while idle (the next scan does not wait for one). */
const WARM_SCANNERS = 1;
/** Compiled rule sets each worker keeps (LRU): clients re-send the same few rule sets. */
const RULES_CACHE_SIZE = 32;
/** A WebAssembly worker whose memory grew past this (a large file was scanned) is replaced: that memory never shrinks. */
const WORKER_RECYCLE_BYTES = 64 * MB;
/** ...once it has had no task for this long: large files sent in a row keep its memory and rules (worker.ts). */
const WORKER_RECYCLE_IDLE_MS = 5000;

/** The WebAssembly worker pool (compiles every source; scans where native cannot) and the native engine, unless FILES_RULES_ENGINE=wasm. */
function createEngines(config: FilesConfig): { pool: YaraPool; native: NativeEngine | undefined } {
  const pool = new YaraPool({
    minThreads: WARM_SCANNERS,
    maxThreads: config.yaraWorkers,
    idleMs: config.workerIdleMs,
    scanTimeoutMs: config.scanTimeoutMs,
    compileTimeoutMs: config.rulesCompileTimeoutMs,
  });
  const native =
    config.rulesEngine === "wasm"
      ? undefined
      : new NativeEngine({
          strict: config.rulesEngine === "native",
          processes: config.yaraWorkers,
          minProcesses: WARM_SCANNERS,
          idleMs: config.workerIdleMs,
          memoryMb: config.rulesNativeMemoryMb,
          timeoutMs: config.scanTimeoutMs,
        });
  return { pool, native };
}

export function createRulematchProcessor(config: FilesConfig, walker?: Walker): Processor {
  const { pool, native } = createEngines(config);
  const scanner = new RuleScanner(pool, native, {
    nativeMaxBytes: config.rulesNativeMaxBytes,
    budgetMs: (size) =>
      Math.min(
        config.scanTimeoutMs,
        Math.round(config.rulesScanBudgetMs + (config.rulesScanBudgetMsPerMb * size) / MB),
      ),
  });
  const share = new ClientShare(
    Math.max(1, Math.floor((config.yaraWorkers * config.rulesClientShare) / 100)),
    config.yaraWorkers,
    config.rulesScanBudgetMs / 2,
  );
  const limits = ruleLimits(config);
  const deps: ScanDeps = { config, scanner, share, limits, walker };
  return {
    name: "rulematch",
    url: "/analyzer/rulematch",
    description:
      "Scan with the caller's YARA rules (YARA-X), of the file and of every child Loupe takes out of it; a child's match carries its path.",
    needsHashes: false,
    fields: Type.Object({
      rules: Type.String({ description: "YARA rules source." }),
      passwords: passwordsFieldSchema,
    }),
    findings: rulematchFindings,
    metadataSchema: rulematchMetadata,
    analysisSchema: rulematchAnalysis,
    run: (file, fields, ctx) => scanUpload(deps, { path: file.path }, file.size, fields, ctx, file),
    // A small upload kept in memory (FILES_UPLOAD_MEMORY_MAX) goes to the scan process as bytes: no temp file.
    runOnBytes: (file, fields, ctx) => scanUpload(deps, { bytes: file.bytes }, file.size, fields, ctx, file),
    async engines() {
      return {
        yara: wasmStatus(pool, config.yaraWorkers),
        yara_native: nativeStatus(native, scanner, config.yaraWorkers),
        yara_share: shareStatus(share),
      };
    },
    async close() {
      await Promise.all([pool.destroy(), native?.close()]);
    },
  };
}

/** What one scan of an upload needs from its processor. */
interface ScanDeps {
  config: FilesConfig;
  scanner: RuleScanner;
  share: ClientShare;
  limits: RuleLimits;
  walker: Walker | undefined;
}

/** `file`: the upload, whose children are scanned too. */
async function scanUpload(
  { config, scanner, share, limits, walker }: ScanDeps,
  input: ScanInput,
  size: number,
  fields: Record<string, string>,
  ctx: ProcessorContext,
  file?: UploadedFile | InMemoryFile,
): Promise<ProcessorOutput> {
  const rules = fields.rules ?? "";
  if (rules.trim() === "") {
    throw badRequest("no_rules", 'Send the YARA rules to run in the form field "rules".');
  }
  const task = {
    rules,
    limits,
    input,
    cacheSize: RULES_CACHE_SIZE,
    recycleBytes: WORKER_RECYCLE_BYTES,
    recycleIdleMs: WORKER_RECYCLE_IDLE_MS,
    maxMatchesPerString: config.ruleMaxMatchesPerString,
    plaintextMax: config.rulePlaintextMax,
    consoleMax: config.rulesConsoleMaxChars,
  };
  const result = await scanInShare(share, ctx, (light) => scanner.scan(task, size, ctx.signal, light));
  if (!result.ok) {
    const detail =
      result.error === "invalid_rules" ? `The rules do not compile:\n${result.message}` : result.message;
    throw badRequest(result.error, detail);
  }
  // The upload's children, with the same (now compiled and cached) rules, in the client's turns too.
  const scanChild: ScanChild = async (path, childSize) => {
    const r = await scanInShare(share, ctx, (light) =>
      scanner.scan({ ...task, input: { path } }, childSize, ctx.signal, light),
    );
    return r.ok ? r.matches : r.message;
  };
  const children =
    file && walker ? await childrenOf(config, walker, file, fields, scanChild, ctx) : undefined;
  const metadata = {
    warnings: result.warnings,
    rules_cached: !result.compiledNow,
    compile_ms: round(result.compileMs),
    scan_ms: round(result.scanMs),
    ...(limits.modules.has("console")
      ? { console: result.console, console_truncated: result.consoleTruncated }
      : {}),
  };
  const matches = [...result.matches, ...(children?.matches ?? [])];
  const notScanned = children?.notScanned.length ? { not_scanned: children.notScanned } : {};
  return { content: null, metadata, analysis: { rules, matches, ...notScanned } };
}

function ruleLimits(config: FilesConfig): RuleLimits {
  return {
    maxBytes: config.rulesMaxBytes,
    maxDepth: config.rulesMaxDepth,
    maxRules: config.rulesMaxRules,
    maxStrings: config.rulesMaxStrings,
    maxPatternBytes: config.rulesMaxPatternBytes,
    maxAlternatives: config.rulesMaxAlternatives,
    modules: new Set(config.rulesModules),
    refuseLargeLoops: config.rulesLargeLoops === "refuse",
  };
}

/**
 * Runs `scan` in the client's share of the workers; a caller without a client (internal) is not
 * held. `light`: the client is not heavy (it may skip a native process's boot, engines.ts).
 */
async function scanInShare<T>(
  share: ClientShare,
  ctx: ProcessorContext,
  scan: (light: boolean) => Promise<T>,
): Promise<T> {
  if (ctx.client === undefined) return scan(true);
  let leave: () => void;
  try {
    leave = await share.enter(ctx.client, ctx.signal);
  } catch {
    throw new ProcessorFailure(
      "aborted",
      "The client went away while its earlier scans ran; nothing was scanned.",
    );
  }
  try {
    return await scan(!share.isHeavy(ctx.client));
  } finally {
    leave();
  }
}

/** The turns in health: how many scans at once, per client, and how many had to wait. */
function shareStatus(share: ClientShare) {
  return {
    ready: true,
    detail:
      `${share.total} YARA scans at once, ${share.perClient} per client (remote address, FILES_RULES_CLIENT_SHARE), ` +
      `the least busy client first, heavy clients ${share.total - 1} at most together; ${share.held} scans waited for their turn`,
  };
}

/** The children's matches; a walk that fails leaves them unscanned, and says so. */
async function childrenOf(
  config: FilesConfig,
  w: Walker,
  file: UploadedFile | InMemoryFile,
  fields: Record<string, string>,
  scan: ScanChild,
  ctx: ProcessorContext,
): Promise<NodeScanResult> {
  const options = { concurrency: config.yaraWorkers, timeoutMs: config.scanTimeoutMs };
  try {
    return await w.withNodes(file, fields, ctx, (nodes) => scanChildren(nodes, scan, options));
  } catch (err) {
    if (!(err instanceof ProcessorFailure)) throw err;
    const reason = `its children could not be taken out: ${err.message}`;
    return { matches: [], notScanned: [{ path: file.filename, reason }] };
  }
}
/** The WebAssembly workers in health: threads started and retired after an engine fault. */
function wasmStatus(pool: YaraPool, maxThreads: number) {
  const last = pool.lastRetirement;
  return {
    ready: true,
    version: `yara-x ${YARA_X_VERSION}`,
    detail:
      `${pool.threads} of ${maxThreads} workers started` +
      (last ? `; last worker retired at ${last.at} after: ${last.reason}` : ""),
    retired_workers: pool.retired,
  };
}

/** The native engine in health: processes, answers, fallbacks and crashes (counted like retired workers). */
function nativeStatus(native: NativeEngine | undefined, scanner: RuleScanner, processes: number) {
  if (!native) return { ready: false, detail: "off (FILES_RULES_ENGINE=wasm)" };
  const fallback = scanner.lastFallback ? ` (last because: ${scanner.lastFallback})` : "";
  const crash = native.lastCrash ? `; last crash at ${native.lastCrash.at}: ${native.lastCrash.reason}` : "";
  return {
    ready: native.unavailable === null,
    version: nativeVersion(),
    detail:
      (native.unavailable !== null ? `unavailable: ${native.unavailable}; ` : "") +
      `${native.started} of ${processes} native scan processes started${poolState(native.health)}; ` +
      `${scanner.nativeAnswers} scans answered natively, ${scanner.fallbacks} by WebAssembly${fallback}, ` +
      `${scanner.notReady} by WebAssembly while no native process was ready` +
      crash +
      poolRecoveries(native.health),
    retired_workers: native.crashes,
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** The YARA-X version, from the package that ships the engine. */
const YARA_X_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.resolve("@virustotal/yara-x")), "utf8")) as {
    version: string;
  }
).version;

/** A match is suspicious at its path (the upload's own carry none); an unscanned child, incomplete. */
function rulematchFindings(analysis: unknown, file: { filename: string }): Finding[] {
  const a = analysis as {
    matches: Array<{ rule: string; path?: string }>;
    not_scanned?: Array<{ path: string; reason: string }>;
  };
  return [
    ...a.matches.map((m) => ({
      level: "suspicious" as const,
      path: m.path ?? file.filename,
      detail: `YARA rule ${m.rule}`,
    })),
    ...(a.not_scanned ?? []).map((n) => ({
      level: "incomplete" as const,
      path: n.path,
      detail: `not scanned by YARA: ${n.reason}`,
    })),
  ];
}
