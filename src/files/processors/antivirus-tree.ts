/**
 * The antivirus over an upload's tree: every child the walk took out (decrypted archive members
 * above all, which clamd cannot open itself) is scanned, packed by the batch scanner, and every
 * child that could not be taken out or scanned is named with why. Identical children (same
 * sha256) are scanned once.
 */
import { type BatchFile, scanFiles } from "../clamd/batch.ts";
import type { ClamdAddress } from "../clamd/client.ts";
import { childFiles, PATH_SEPARATOR, pathOf, type TreeNode, unanalysed } from "./tree/nodes.ts";

export interface TreeScan {
  detections: Array<{ path: string; signature: string; sha256?: string }>;
  notScanned: Array<{ path: string; status: string; reason: string }>;
  /** clamd scans made for the children. */
  scans: number;
}

export interface TreeScanOptions {
  timeoutMs: number;
  batchBytes: number;
}

export async function scanTree(
  clamd: ClamdAddress,
  nodes: TreeNode[],
  opts: TreeScanOptions,
): Promise<TreeScan> {
  const children = childFiles(nodes);
  const bySha = new Map<string, Array<TreeNode & { file: string }>>();
  const files: BatchFile[] = [];
  for (const node of children) {
    const sha = node.hashes?.sha256 ?? `node-${node.id}`;
    const same = bySha.get(sha);
    if (same) same.push(node);
    else {
      bySha.set(sha, [node]);
      files.push({ key: sha, path: node.file, size: node.size ?? 0 });
    }
  }
  const result = await scanFiles(clamd, files, { ...opts, deadline: Date.now() + opts.timeoutMs });
  const detections = deepest(
    result.detections.flatMap(({ key, signature }) =>
      (bySha.get(key) ?? []).map((n) => ({ path: pathOf(n), signature, ...shaOf(n) })),
    ),
  );
  // A node that could not be opened was scanned as bytes, but what it holds was not: not complete.
  const notScanned = [
    ...unanalysed(nodes),
    ...result.unscanned.flatMap(({ key, reason }) =>
      (bySha.get(key) ?? []).map((n) => ({ path: pathOf(n), status: "failed", reason })),
    ),
  ];
  return { detections, notScanned, scans: result.scans };
}

const shaOf = (n: TreeNode) => (n.hashes ? { sha256: n.hashes.sha256 } : {});

/**
 * The detections that name where the signature is: a container flagged for the same signature as
 * one of its children (clamd opens what it can) is left out, the child is the answer.
 */
export function deepest<T extends { path: string; signature: string }>(detections: T[]): T[] {
  return detections.filter(
    (d) =>
      !detections.some(
        (e) => e !== d && e.signature === d.signature && e.path.startsWith(d.path + PATH_SEPARATOR),
      ),
  );
}
