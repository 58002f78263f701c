/**
 * YARA over an upload's tree: the caller's rules, compiled once (the scanner caches them), run on
 * every child the walk took out, a few at a time (as many as there are scan processes), within
 * one time budget for the whole tree; each match says the child's path. Identical children are
 * scanned once. A child not scanned in time, or not taken out, is named with why.
 */
import pLimit from "p-limit";
import type { RuleMatch } from "./rulematch/matches.ts";
import { childFiles, pathOf, type TreeNode, unanalysed } from "./tree/nodes.ts";

export interface NodeScanResult {
  matches: Array<RuleMatch & { path: string }>;
  notScanned: Array<{ path: string; reason: string }>;
}

/** Scans one child file; its matches, or an error message. */
export type ScanChild = (path: string, size: number) => Promise<RuleMatch[] | string>;

export async function scanChildren(
  nodes: TreeNode[],
  scan: ScanChild,
  opts: { concurrency: number; timeoutMs: number },
): Promise<NodeScanResult> {
  const deadline = Date.now() + opts.timeoutMs;
  const limit = pLimit(Math.max(1, opts.concurrency));
  const result: NodeScanResult = {
    matches: [],
    notScanned: unanalysed(nodes).map(({ path, reason }) => ({ path, reason })),
  };
  // Identical children (same sha256) are scanned once.
  const once = new Map<string, Promise<RuleMatch[] | string>>();
  const answerFor = (node: TreeNode & { file: string }) => {
    const key = node.hashes?.sha256 ?? node.file;
    let answer = once.get(key);
    if (!answer) {
      answer = limit(async () =>
        Date.now() >= deadline ? "the YARA time limit came first" : scan(node.file, node.size ?? 0),
      );
      once.set(key, answer);
    }
    return answer;
  };
  const scanned = await Promise.all(
    childFiles(nodes).map(async (node) => ({ node, answer: await answerFor(node) })),
  );
  for (const { node, answer } of scanned) {
    if (typeof answer === "string") result.notScanned.push({ path: pathOf(node), reason: answer });
    else result.matches.push(...answer.map((m) => ({ ...m, path: pathOf(node) })));
  }
  return result;
}
