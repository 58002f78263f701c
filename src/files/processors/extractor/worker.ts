/**
 * The extraction job, run in a sandbox process: one file in, the analysis out. A parse error is
 * an answer; running out of memory is not, it is thrown so the sandbox reports `resource_limit`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { detect } from "tinyld";
import { Budget } from "./budget.ts";
import { extractBytes } from "./extract.ts";
import { Keyring } from "./passwords.ts";
import { type ExtractLimits, normaliseWhitespace, ParseFailure } from "./result.ts";
import { carrySpans, clipSpans, type TextSpan } from "./text-spans.ts";
import { Tree, type TreeNode } from "./tree.ts";

export interface ExtractTask {
  path: string;
  filename: string;
  limits: ExtractLimits;
  /** When the extraction's time is up (epoch ms): archive entries stop being opened as it comes near. */
  deadline: number;
  /** The upload's own private folder for its children's bytes, made by the parent (never here: see scratch.ts); without it they are not written. */
  childrenDir?: string;
}

export type ExtractResult =
  | {
      ok: true;
      content: string;
      title: string | null;
      created: string | null;
      type: string;
      language: string | null;
      extra: Record<string, Record<string, unknown>>;
      /** The root (the upload) first, then every child taken out, in the order they were met. */
      nodes: TreeNode[];
      /** Each child's own text in `content` (the rest is the root's). */
      spans: TextSpan[];
    }
  | { ok: false; type: string | null; error: string; nodes: TreeNode[] };

const MIN_LANGUAGE_CHARS = 40;
/** What V8 says when an allocation is refused (the data rlimit) or a string would pass its maximum. */
const OUT_OF_MEMORY = /allocation failed|Invalid string length|Invalid array length|Failed to allocate/i;

export default async function run(task: ExtractTask): Promise<ExtractResult> {
  const bytes = readFileSync(task.path);
  const tree = new Tree(task.filename, bytes.length, task.childrenDir, {
    maxNodes: task.limits.maxArchiveEntries,
    maxBytes: task.limits.maxArchiveBytes,
  });
  try {
    const settings = task.limits.ocr
      ? { ...task.limits, ocr: { ...task.limits.ocr, tmpDir: path.dirname(task.path) } }
      : task.limits;
    const budget = new Budget(settings, task.deadline);
    const keyring = new Keyring(settings.passwords ?? [], settings.maxPasswordTries ?? 0);
    const out = await extractBytes(bytes, task.filename, 0, {
      ...settings,
      budget,
      keyring,
      tree,
      uploadPath: task.path,
    });
    tree.root.type = out.type;
    const { content, spans, cut } = ownText(tree, out.text, task.limits.maxChars);
    const loupe: Record<string, unknown> = { ...out.extra.loupe };
    if (cut) budget.stop("more text than FILES_EXTRACT_MAX_CHARS allows");
    if (budget.reason) loupe.truncated = budget.reason;
    const language = content.length >= MIN_LANGUAGE_CHARS ? detect(content.slice(0, 20_000)) || null : null;
    return {
      nodes: tree.nodes,
      ok: true,
      content,
      spans,
      title: out.title?.trim() || null,
      created: out.created ?? null,
      type: out.type,
      language,
      extra: { ...out.extra, ...(Object.keys(loupe).length ? { loupe } : {}) },
    };
  } catch (err) {
    if (err instanceof RangeError && OUT_OF_MEMORY.test(err.message)) throw err;
    const message = err instanceof Error ? err.message : String(err);
    tree.failed(tree.root, err);
    return {
      nodes: tree.nodes,
      ok: false,
      type: null,
      error: err instanceof ParseFailure ? message : `could not read the file: ${message}`,
    };
  }
}

/** The text with its marks taken out, whitespace normalised, cut at `maxChars`, and each child's span in it. */
function ownText(tree: Tree, marked: string, maxChars: number) {
  const { text, spans } = tree.marks.unwrap(marked);
  const normalised = normaliseWhitespace(text);
  const cut = normalised.length > maxChars;
  const content = cut ? normalised.slice(0, maxChars) : normalised;
  const carried = spans.length ? carrySpans(text, normalised, spans) : [];
  return { content, cut, spans: clipSpans(carried, content.length) };
}
