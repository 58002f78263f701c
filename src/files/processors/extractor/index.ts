/**
 * `POST /analyzer/extractor`: text and metadata, natively (no Java), from the upload's walk
 * (tree/walk.ts: sandbox processes, whose resident memory is what is bounded — a worker thread's
 * heap limit missed WASM, Buffers and native memory). The tree of children is in `extra.tree`.
 */
import { Type } from "typebox";
import { type FilesConfig, WARM_THREADS } from "../../config.ts";
import { ExecutableInspector, type ExecutableResult } from "../../executable/index.ts";
import { FuzzyHasher } from "../../fuzzy/index.ts";
import { iocOptions } from "../../iocs/options.ts";
import { extractionParts } from "../../iocs/parts.ts";
import { type IocScanner, IocScanTimeout } from "../../iocs/scanner.ts";
import type { UploadedFile } from "../../upload.ts";
import { type Processor, ProcessorFailure } from "../processor.ts";
import { extractorAnalysis } from "../schemas.ts";
import { type ShownNode, shownNodes, type TreeNode } from "../tree/nodes.ts";
import { withNodePaths } from "../tree/text-paths.ts";
import type { Walker } from "../tree/walk.ts";
import { ocrEngine } from "./backends/ocr.ts";
import { passwordsFieldSchema } from "./passwords-field.ts";
import type { ExtractResult } from "./worker.ts";

export function createExtractorProcessor(
  config: FilesConfig,
  walker: Walker,
  scanner: IocScanner,
): Processor {
  const { hasher, inspector, fuzzyOf, iocsOf, executableOf, treeOf } = createEnrichers(config, scanner);
  return {
    name: "extractor",
    url: "/analyzer/extractor",
    description:
      "Text and metadata extraction (PDF, Office and legacy Office, OpenDocument, RTF, HTML, email and Outlook MSG, text, images, audio/video, archives including 7z, APK manifests).",
    needsHashes: true,
    fields: Type.Object({ passwords: passwordsFieldSchema }),
    metadataSchema: Type.Null(),
    analysisSchema: extractorAnalysis,
    async run(file, fields, ctx) {
      const passwords = walker.passwords(fields);
      const fuzzyHashes = fuzzyOf(file, ctx.signal);
      fuzzyHashes.catch(() => {}); // awaited below; ignored when the extraction fails first
      const executable = executableOf(file, ctx.signal);
      executable.catch(() => {});
      const result = await walker.walk(file, passwords, ctx.signal);
      if (!result.ok) throw new ProcessorFailure("parse_error", result.error);
      const [fuzzy, found, facts, tree] = await Promise.all([
        fuzzyHashes,
        iocsOf(result, ctx.signal),
        executable,
        treeOf(result.nodes, file, ctx.signal),
      ]);
      const iocs = withNodePaths(found, result.content, result.nodes);
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
            tree,
          },
        },
      };
    },
    findings: (analysis) => {
      const tree = (analysis as { extra: { tree?: { nodes: ShownNode[] } } }).extra.tree;
      return (tree?.nodes ?? [])
        .filter((n) => n.status !== "analysed")
        .map((n) => ({
          level: "incomplete" as const,
          path: n.path,
          detail: `${n.status}: ${n.reason ?? n.status}`,
        }));
    },
    async engines() {
      return {
        extractor: walker.engine(),
        ...(config.ocr ? { ocr: await ocrEngine() } : {}),
      };
    },
    async close() {
      await Promise.all([hasher.close(), inspector.close()]);
    },
  };
}

/** The hashes, indicators and executable facts added to each extraction, each in its own pool. */
function createEnrichers(config: FilesConfig, scanner: IocScanner) {
  // Fuzzy hashes (docs/configuration.md: FUZZY_*) and indicators (docs/iocs.md), in their own pools.
  const workers = {
    threads: config.extractWorkers,
    minThreads: WARM_THREADS,
    idleMs: config.workerIdleMs,
  };
  const hasher = new FuzzyHasher({
    ...workers,
    timeoutMs: config.fuzzyTimeoutMs,
    maxBytes: config.fuzzyMaxBytes,
  });
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
  // Every executable child's structure too, beside its node (`extra.tree.nodes[i].executable`).
  const treeOf = async (nodes: TreeNode[], file: UploadedFile, signal: AbortSignal) => {
    const shown: Array<ShownNode & { executable?: ExecutableResult }> = shownNodes(nodes, file);
    await Promise.all(
      nodes.map(async (n, i) => {
        if (n.parent === null || !n.file) return;
        const facts = await inspector.inspect(n.file, n.size ?? 0, signal).catch(() => null);
        if (facts) (shown[i] as ShownNode & { executable?: ExecutableResult }).executable = facts;
      }),
    );
    return { nodes: shown };
  };
  return { hasher, inspector, fuzzyOf, iocsOf, executableOf, treeOf };
}

/** imphash (PE) and telfhash (ELF) sit with the other hashes too. */
function executableHashes(facts: ExecutableResult | null): Record<string, string> {
  if (!facts || "error" in facts) return {};
  const { imphash, telfhash } = facts.details as { imphash?: string | null; telfhash?: string | null };
  return { ...(imphash ? { imphash } : {}), ...(telfhash ? { telfhash } : {}) };
}
