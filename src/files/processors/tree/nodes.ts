/**
 * The tree as the answers show it: one flat list, root first, each node named by its path
 * (`invoice.eml › invoice.zip › eicar.com`) — a path is what an analyst reads and what every
 * processor's per-node result points at. The children's bytes stay where the walk wrote them.
 */
import type { FileHashes, UploadedFile } from "../../upload.ts";
import type { TreeNode } from "../extractor/tree.ts";

export type { TreeNode } from "../extractor/tree.ts";

export const PATH_SEPARATOR = " › ";

export function pathOf(node: Pick<TreeNode, "path">): string {
  return node.path.join(PATH_SEPARATOR);
}

/** A node as answered: its path, facts, status and hashes (the root's are the upload's). */
export interface ShownNode {
  path: string;
  name: string;
  depth: number;
  size: number | null;
  type: string | null;
  status: TreeNode["status"];
  reason?: string;
  budget?: string;
  hashes?: FileHashes;
}

export function shownNodes(nodes: TreeNode[], file: UploadedFile): ShownNode[] {
  return nodes.map((n) => {
    const hashes = n.parent === null ? file.hashes : n.hashes;
    return {
      path: pathOf(n),
      name: n.name,
      depth: n.path.length - 1,
      size: n.size,
      type: n.type,
      status: n.status,
      ...(n.reason ? { reason: n.reason } : {}),
      ...(n.budget ? { budget: n.budget } : {}),
      ...(hashes ? { hashes } : {}),
    };
  });
}

/** The nodes that were not analysed completely, with why: what makes an answer incomplete. */
export function unanalysed(nodes: TreeNode[]): Array<{ path: string; status: string; reason: string }> {
  return nodes
    .filter((n) => n.status !== "analysed")
    .map((n) => ({ path: pathOf(n), status: n.status, reason: n.reason ?? n.status }));
}

/** The children whose bytes were taken out (the root is the upload itself). */
export function childFiles(nodes: TreeNode[]): Array<TreeNode & { file: string }> {
  return nodes.filter((n): n is TreeNode & { file: string } => n.parent !== null && n.file !== undefined);
}
