/**
 * `POST /analyzer/extractor`: text and metadata, natively (no Java), in a pool of sandbox
 * processes: a worker thread's heap limit missed WASM, Buffers and native memory (a PDF reached
 * 4 GB), a process's resident memory is what is bounded. A stuck or exhausted process is killed
 * and replaced; that extraction answers with its entry error.
 */
import { Type } from "typebox";
import type { FilesConfig } from "../../config.ts";
import { ExecutableInspector, type ExecutableResult } from "../../executable/index.ts";
import { FuzzyHasher } from "../../fuzzy/index.ts";
import { iocOptions } from "../../iocs/options.ts";
import { extractionParts } from "../../iocs/parts.ts";
import { IocScanner, IocScanTimeout } from "../../iocs/scanner.ts";
import { findPrlimit } from "../../sandbox/memory.ts";
import { SandboxFailure, SandboxPool } from "../../sandbox/pool.ts";
import type { UploadedFile } from "../../upload.ts";
import { type Processor, ProcessorFailure } from "../processor.ts";
import { extractorAnalysis } from "../schemas.ts";
import { ocrEngine } from "./backends/ocr.ts";
import { passwordsField, passwordsFieldSchema } from "./passwords-field.ts";
import type { ExtractResult, ExtractTask } from "./worker.ts";

export function createExtractorProcessor(config: FilesConfig): Processor {
  const pool = new SandboxPool<ExtractTask, ExtractResult>({
    label: "Extraction",
    module: new URL("./worker.ts", import.meta.url),
    memoryMb: config.extractMemoryMb,
    timeoutMs: config.extractTimeoutMs,
    prlimit: findPrlimit(),
    size: config.extractWorkers,
    minIdle: config.extractMinProcesses,
    idleMs: config.extractIdleMs,
  });
  const limits = extractLimits(config);
  const { hasher, scanner, inspector, fuzzyOf, iocsOf, executableOf } = createEnrichers(config);
  return {
    name: "extractor",
    url: "https://github.com/loupe-project/loupe/blob/main/docs/extraction.md",
    description:
      "Text and metadata extraction (PDF, Office and legacy Office, OpenDocument, RTF, HTML, email and Outlook MSG, text, images, audio/video, archives including 7z, APK manifests).",
    needsHashes: true,
    fields: Type.Object({ passwords: passwordsFieldSchema }),
    metadataSchema: Type.Null(),
    analysisSchema: extractorAnalysis,
    async run(file, fields, ctx) {
      const passwords = [
        ...passwordsField(fields.passwords, config.archiveMaxPasswords),
        ...config.archivePasswords,
      ];
      // Waiting for a free process counts against the same time limit as the work.
      const deadline = AbortSignal.timeout(config.extractTimeoutMs);
      const fuzzyHashes = fuzzyOf(file, ctx.signal);
      fuzzyHashes.catch(() => {}); // awaited below; ignored when the extraction fails first
      const executable = executableOf(file, ctx.signal);
      executable.catch(() => {});
      let result: ExtractResult;
      try {
        result = await pool.run(
          {
            path: file.path,
            filename: file.filename,
            limits: { ...limits, passwords },
            deadline: Date.now() + config.extractTimeoutMs,
          },
          AbortSignal.any([deadline, ctx.signal]),
        );
      } catch (err) {
        throw asFailure(err, deadline, config.extractTimeoutMs);
      }
      if (!result.ok) throw new ProcessorFailure("parse_error", result.error);
      const [fuzzy, iocs, facts] = await Promise.all([fuzzyHashes, iocsOf(result, ctx.signal), executable]);
      return {
        content: result.content,
        metadata: null,
        analysis: {
          content_length: file.size,
          created: result.created,
          title: result.title,
          type: result.type,
          language: result.language,
          extra: {
            ...result.extra,
            hashes: { ...file.hashes, ...fuzzy, ...executableHashes(facts) },
            file: { name: file.filename, declared_type: file.declaredType },
            iocs,
            ...(facts ? { executable: facts } : {}),
          },
        },
      };
    },
    async engines() {
      return {
        extractor: { ready: pool.startFailure === null, detail: poolDetail(pool, config.extractWorkers) },
        ...(config.ocr ? { ocr: await ocrEngine() } : {}),
      };
    },
    async close() {
      await Promise.all([pool.close(), hasher.close(), scanner.close(), inspector.close()]);
    },
  };
}

/** What the sandboxed worker needs from the settings: its limits, OCR and Tika. */
function extractLimits(config: FilesConfig): ExtractTask["limits"] {
  return {
    maxChars: config.extractMaxChars,
    maxDepth: config.extractMaxDepth,
    maxArchiveBytes: config.extractMaxArchiveBytes,
    maxArchiveEntries: config.extractMaxArchiveEntries,
    maxPasswordTries: config.archiveMaxPasswordTries,
    maxKeyPower: config.archiveMaxKeyPower,
    maxKeyRounds: config.archiveMaxKeyRounds,
    // The worker sets the OCR temp folder: the upload's own private folder.
    ...(config.ocr
      ? {
          ocr: {
            languages: config.ocrLanguages,
            timeoutMs: config.ocrTimeoutMs,
            maxPages: config.ocrMaxPages,
            tmpDir: "",
          },
        }
      : {}),
    ...(config.tikaUrl ? { tika: { url: config.tikaUrl, timeoutMs: config.tikaTimeoutMs } } : {}),
  };
}

/** The hashes, indicators and executable facts added to each extraction, each in its own pool. */
function createEnrichers(config: FilesConfig) {
  // Fuzzy hashes (docs/configuration.md: FUZZY_*) and indicators (docs/iocs.md), in their own pools.
  const workers = {
    threads: config.extractWorkers,
    minThreads: config.workerMinThreads,
    idleMs: config.workerIdleMs,
  };
  const hasher = new FuzzyHasher({
    ...workers,
    timeoutMs: config.fuzzyTimeoutMs,
    maxBytes: config.fuzzyMaxBytes,
  });
  const scanner = new IocScanner({ ...workers, timeoutMs: config.iocTimeoutMs });
  // Fuzzy hashes start with the extraction (they read the file, not its text); indicators follow it.
  const fuzzyOf = (file: UploadedFile, signal: AbortSignal) =>
    hasher
      .hash(file.path, file.size, signal)
      .then((f) => (f.skipped ? { fuzzy_skipped: f.skipped } : { ssdeep: f.ssdeep, tlsh: f.tlsh }));
  const iocsOf = (result: ExtractResult & { ok: true }, signal: AbortSignal) =>
    scanner
      .scan(
        extractionParts({ content: result.content, title: result.title, extra: result.extra }),
        iocOptions(config),
        signal,
      )
      .catch((err: unknown) => {
        if (err instanceof IocScanTimeout) return { error: "timeout" };
        throw err;
      });
  // Executable structure (docs/extraction.md, "Executables"): YARA-X modules in YARA worker threads.
  const inspector = new ExecutableInspector({
    ...workers,
    timeoutMs: config.executableTimeoutMs,
    maxBytes: config.executableMaxBytes,
    maxItems: config.executableMaxItems,
    maxOutputChars: config.executableMaxOutputChars,
    maxTableEntries: config.executableMaxTableEntries,
  });
  const executableOf = (file: UploadedFile, signal: AbortSignal) =>
    inspector.inspect(file.path, file.size, signal);
  return { hasher, scanner, inspector, fuzzyOf, iocsOf, executableOf };
}

/** imphash (PE) and telfhash (ELF) sit with the other hashes too. */
function executableHashes(facts: ExecutableResult | null): Record<string, string> {
  if (!facts || "error" in facts) return {};
  const { imphash, telfhash } = facts.details as { imphash?: string | null; telfhash?: string | null };
  return { ...(imphash ? { imphash } : {}), ...(telfhash ? { telfhash } : {}) };
}

function asFailure(err: unknown, deadline: AbortSignal, timeoutMs: number): ProcessorFailure {
  if (err instanceof SandboxFailure && err.kind !== "aborted")
    return new ProcessorFailure(err.kind, err.message);
  if (deadline.aborted)
    return new ProcessorFailure(
      "timeout",
      `Extraction did not finish within ${timeoutMs} ms and was stopped.`,
    );
  const message = err instanceof Error ? err.message : String(err);
  return new ProcessorFailure("engine_error", `Extraction failed: ${message}`);
}

/** Processes started, and the last one lost (a replacement starts on the next extraction). */
function poolDetail(pool: SandboxPool<ExtractTask, ExtractResult>, size: number): string {
  if (pool.startFailure) return `extraction processes cannot start: ${pool.startFailure}`;
  const started = `${pool.started} of ${size} extraction processes started`;
  const last = pool.lastFailure;
  return last ? `${started}; last stopped at ${last.at} (${last.kind})` : started;
}
