/**
 * `POST /analyzer/rulematch`: the caller's YARA rules, run by YARA-X in a pool of worker threads
 * so a long scan never blocks other requests. A scan past SCAN_TIMEOUT_MS is ended by
 * terminating its worker (YARA-X's own timeout cannot interrupt WebAssembly).
 */
import { readFileSync } from "node:fs";
import { Piscina } from "piscina";
import { Type } from "typebox";
import { badRequest } from "../../../common/errors.ts";
import type { FilesConfig } from "../../config.ts";
import { type Processor, ProcessorFailure } from "../processor.ts";
import { rulematchAnalysis, rulematchMetadata } from "../schemas.ts";
import type { CompileTask, ScanTask, TaskResult } from "./worker.ts";

export function createRulematchProcessor(config: FilesConfig): Processor {
  const pool = new Piscina<ScanTask | CompileTask, TaskResult>({
    filename: new URL("./worker.ts", import.meta.url).href,
    minThreads: config.workerMinThreads,
    maxThreads: config.yaraWorkers,
    idleTimeout: config.workerIdleMs,
    // A worker holding a cached rule set may grow; recycle it rather than keep a bloated heap.
    resourceLimits: { maxOldGenerationSizeMb: 2048 },
  });
  return {
    name: "rulematch",
    url: "https://virustotal.github.io/yara-x/",
    description: "Scan with the caller's YARA rules (YARA-X).",
    needsHashes: false,
    fields: Type.Object({ rules: Type.String({ description: "YARA rules source." }) }),
    metadataSchema: rulematchMetadata,
    analysisSchema: rulematchAnalysis,
    async run(file, fields, ctx) {
      const rules = fields.rules ?? "";
      if (rules.trim() === "") {
        throw badRequest("no_rules", 'Send the YARA rules to run in the form field "rules".');
      }
      const task: ScanTask = {
        kind: "scan",
        rules,
        path: file.path,
        cacheSize: config.rulesCacheSize,
        maxMatchesPerString: config.ruleMaxMatchesPerString,
        plaintextMax: config.rulePlaintextMax,
      };
      const result = await runTask(pool, task, config.scanTimeoutMs, ctx.signal);
      if (!result.ok) throw badRequest("invalid_rules", `The rules do not compile:\n${result.message}`);
      const metadata = {
        warnings: result.warnings,
        rules_cached: !result.compiledNow,
        compile_ms: round(result.compileMs),
        scan_ms: round(result.scanMs),
      };
      return { content: null, metadata, analysis: { rules, matches: result.matches } };
    },
    async engines() {
      return {
        yara: {
          ready: true,
          version: `yara-x ${YARA_X_VERSION}`,
          detail: `${pool.threads.length} of ${config.yaraWorkers} workers started`,
        },
      };
    },
    async close() {
      await pool.destroy();
    },
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Runs one task with a deadline; the pool terminates the worker of an aborted task. */
export async function runTask(
  pool: Piscina<ScanTask | CompileTask, TaskResult>,
  task: ScanTask | CompileTask,
  timeoutMs: number,
  clientGone: AbortSignal,
): Promise<TaskResult> {
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    return await pool.run(task, { signal: AbortSignal.any([deadline, clientGone]) });
  } catch (err) {
    if (deadline.aborted) {
      throw new ProcessorFailure(
        "timeout",
        `The YARA scan did not finish within ${timeoutMs} ms and was stopped.`,
      );
    }
    if (clientGone.aborted)
      throw new ProcessorFailure("aborted", "The client went away; the scan was stopped.");
    throw new ProcessorFailure(
      "engine_error",
      `YARA-X failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** The YARA-X version, from the package that ships the engine. */
const YARA_X_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.resolve("@virustotal/yara-x")), "utf8")) as {
    version: string;
  }
).version;
