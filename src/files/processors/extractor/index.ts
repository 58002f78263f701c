/**
 * `POST /analyzer/extractor`: text and metadata, natively (no Java), from the upload's walk
 * (tree/walk.ts: sandbox processes, whose resident memory is what is bounded — a worker thread's
 * heap limit missed WASM, Buffers and native memory). Beside them, the node analyses
 * (tree/node-analyses.ts) of the upload and of every child: fuzzy hashes and executable structure
 * of each node, indicators of the text with each one's node; the tree of children is `extra.tree`.
 */
import { Type } from "typebox";
import type { FilesConfig } from "../../config.ts";
import type { ExecutableResult } from "../../executable/index.ts";
import type { FuzzyResult } from "../../fuzzy/index.ts";
import { IocScanTimeout } from "../../iocs/scanner.ts";
import type { UploadedFile } from "../../upload.ts";
import { type Processor, ProcessorFailure } from "../processor.ts";
import { extractorAnalysis } from "../schemas.ts";
import type { NodeAnalyses, WalkDone } from "../tree/node-analyses.ts";
import { type ShownNode, shownNodes } from "../tree/nodes.ts";
import type { Walker } from "../tree/walk.ts";
import { ocrEngine } from "./backends/ocr.ts";
import { hasPdftotext } from "./formats/pdftotext.ts";
import { passwordsFieldSchema } from "./passwords-field.ts";

export function createExtractorProcessor(
  config: FilesConfig,
  walker: Walker,
  analyses: NodeAnalyses,
): Processor {
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
      const walking = walker.walk(file, walker.passwords(fields), ctx);
      const walked = walking.then((w) =>
        w.ok ? w : Promise.reject(new ProcessorFailure("parse_error", w.error)),
      );
      const fuzzy = analyses.schedule(analyses.fuzzy, file, walked, ctx.signal);
      const executable = analyses.schedule(analyses.executable, file, walked, ctx.signal);
      const iocs = analyses.schedule(analyses.iocs(), file, walked, ctx.signal);
      const walk = await walked;
      const [rootFuzzy, facts, found, childFuzzy, childFacts] = await Promise.all([
        fuzzy.root,
        executable.root,
        iocs.text?.catch((err: unknown) => {
          if (err instanceof IocScanTimeout) return { error: "timeout" };
          throw err;
        }),
        fuzzy.children,
        executable.children,
      ]);
      const hashes = {
        ...file.hashes,
        ...fuzzyHashes(rootFuzzy ?? null),
        ...executableHashes(facts ?? null),
      };
      const tree = treeOf(walk, file, childFuzzy, childFacts);
      return {
        content: walk.content,
        metadata: null,
        analysis: {
          content_length: file.size,
          created: walk.created,
          title: walk.title,
          type: walk.type,
          language: walk.language,
          extra: {
            ...walk.extra,
            hashes,
            file: { name: file.filename, declared_type: file.declaredType },
            iocs: found,
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
        pdf_text: pdfTextEngine(),
        ...(config.ocr ? { ocr: await ocrEngine() } : {}),
      };
    },
    close: () => analyses.close(),
  };
}

/** Who reads PDF pages: an image without poppler-utils falls back to pdf.js, about twice as slow. */
function pdfTextEngine() {
  return hasPdftotext()
    ? { ready: true, detail: "poppler's pdftotext (-raw), pdf.js for what it cannot read" }
    : {
        ready: true,
        detail: "pdf.js: pdftotext is not installed (poppler-utils reads text PDFs about twice as fast)",
      };
}

type TreeShown = Omit<ShownNode, "hashes"> & {
  hashes?: Record<string, string | null>;
  executable?: ExecutableResult;
};

/**
 * The tree as answered, each child with what the node analyses found in it: its fuzzy hashes beside
 * the others, an executable child's structure (the root's are in `extra.hashes` and
 * `extra.executable`, where Mandolin's clients read them).
 */
function treeOf(
  walk: WalkDone,
  file: UploadedFile,
  fuzzy: Map<number, FuzzyResult> | undefined,
  facts: Map<number, ExecutableResult> | undefined,
): { nodes: TreeShown[] } {
  const shown: TreeShown[] = shownNodes(walk.nodes, file) as TreeShown[];
  walk.nodes.forEach((n, i) => {
    const node = shown[i] as TreeShown;
    if (n.parent === null) return; // the root's are `extra.hashes` and `extra.executable`
    const own = fuzzyHashes(fuzzy?.get(n.id) ?? null);
    if (node.hashes && Object.keys(own).length) node.hashes = { ...node.hashes, ...own };
    const executable = facts?.get(n.id);
    if (executable) node.executable = executable;
  });
  return { nodes: shown };
}

/** ssdeep and TLSH (null when the file is too short or too plain for it), or why they were not computed. */
function fuzzyHashes(f: FuzzyResult | null): Record<string, string | null> {
  if (!f) return {};
  return f.skipped ? { fuzzy_skipped: f.skipped } : { ssdeep: f.ssdeep, tlsh: f.tlsh };
}

/** imphash (PE) and telfhash (ELF) sit with the other hashes too. */
function executableHashes(facts: ExecutableResult | null): Record<string, string> {
  if (!facts || "error" in facts) return {};
  const { imphash, telfhash } = facts.details as { imphash?: string | null; telfhash?: string | null };
  return { ...(imphash ? { imphash } : {}), ...(telfhash ? { telfhash } : {}) };
}
