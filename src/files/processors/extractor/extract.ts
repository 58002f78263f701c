/**
 * Extracts one file (or archive entry): its type is found once from the magic bytes, then the
 * first row of the format table (formats/table.ts) that recognises it does the work. Each child a
 * format takes out goes through `recurse`, which records it in the tree (limits.tree) first.
 */
import { fileTypeFromBuffer } from "file-type";
import type { Limits } from "./budget.ts";
import { formatOf } from "./formats/table.ts";
import type { Recurse, Typed } from "./result.ts";
import type { TreeNode } from "./tree.ts";

/**
 * Extracts one file (or archive entry) and charges its text to the budget. An archive's text is
 * made of its entries' texts, each charged already, so it is passed on as it is. `node`: this
 * file's place in the tree (the root when omitted).
 */
export async function extractBytes(
  bytes: Buffer,
  name: string,
  depth: number,
  limits: Limits,
  node: TreeNode | null = limits.tree?.root ?? null,
): Promise<Typed> {
  const mime = (await fileTypeFromBuffer(bytes))?.mime as string | undefined;
  const recurse = recurseFrom(node, limits);
  const file = node?.file ?? (node && node === limits.tree?.root ? limits.uploadPath : undefined);
  const input = { bytes, name, mime, depth, limits, recurse, file };
  const out = await formatOf(input).extract(input);
  return out.extra.archive ? out : { ...out, text: limits.budget.takeText(out.text) };
}

/** The children of `parent`: each recorded (bytes written, hashed) before it is read in turn. */
function recurseFrom(parent: TreeNode | null, limits: Limits): Recurse {
  const tree = limits.tree;
  const recurse: Recurse = async (b, n, d) => {
    const child = parent && tree ? tree.child(parent, n, b) : null;
    try {
      const out = await extractBytes(b, n, d, limits, child);
      if (!child || !tree) return out;
      tree.done(child, out);
      // Its text marked as its own, whatever its parent's format writes around it.
      return { ...out, text: tree.marks.wrap(child.id, out.text) };
    } catch (err) {
      if (child) tree?.failed(child, err);
      throw err;
    }
  };
  if (parent && tree) {
    recurse.skipped = (n, size, status, reason) => tree.skipped(parent, n, size, status, reason);
    recurse.cut = (reason) => tree.cut(parent, reason);
    recurse.within = (n, type) => {
      const node = tree.part(parent, n, type);
      if (!node) return { recurse, own: (text) => text };
      return { recurse: recurseFrom(node, limits), own: (text) => tree.marks.wrap(node.id, text) };
    };
  }
  return recurse;
}
