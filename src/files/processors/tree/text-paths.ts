/**
 * Which node a place in the extracted text comes from. The text carries one marker line per child
 * (`── name ──`, `── attachment name ──`) in the order the walk met the children, which is the
 * order of the nodes; each marker is matched to the next node of that name, and an offset belongs
 * to the last marker before it (the root's before the first). Text a container adds after its
 * children is attributed to its last child: markers have no end.
 */
import { pathOf, type TreeNode } from "./nodes.ts";

/** One marker per line, bounded: linear. */
const MARKER = /^── (?:attachment )?([^\n]{0,1000}) ──$/gm;

export function pathsInText(content: string, nodes: TreeNode[]): (offset: number) => string {
  const root = nodes[0] ? pathOf(nodes[0]) : "";
  const starts: number[] = [];
  const paths: string[] = [];
  let next = 1;
  for (const m of content.matchAll(MARKER)) {
    let at = next;
    while (at < nodes.length && nodes[at]?.name !== m[1]) at++;
    if (at >= nodes.length) continue; // a line that only looks like a marker
    next = at + 1;
    starts.push(m.index);
    paths.push(pathOf(nodes[at] as TreeNode));
  }
  return (offset) => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? root : (paths[lo - 1] as string);
  };
}

type Located = { locations?: Array<{ part: string; offset: number; path?: string }> };

/** Adds each content location's node path to an indicator scan's result (in place). */
export function withNodePaths<T extends object>(result: T, content: string, nodes: TreeNode[]): T {
  const indicators = (result as { indicators?: unknown }).indicators;
  if (!Array.isArray(indicators) || nodes.length < 2) return result;
  const at = pathsInText(content, nodes);
  for (const indicator of indicators as Located[])
    for (const l of indicator.locations ?? []) if (l.part === "content") l.path = at(l.offset);
  return result;
}
