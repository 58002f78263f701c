/**
 * Which node a place in the extracted text comes from: the walk says where each child's own text
 * lies (its span, extractor/text-spans.ts; spans nest as the tree does), and an offset belongs to
 * the innermost span around it — the root outside every span. Text a container writes after its
 * children is the container's.
 */
import type { TextSpan } from "../extractor/text-spans.ts";
import { pathOf, type TreeNode } from "./nodes.ts";

/** The path of the node an offset of the content belongs to. */
export function pathsInText(spans: TextSpan[], nodes: TreeNode[]): (offset: number) => string {
  const root = nodes[0] ? pathOf(nodes[0]) : "";
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const owner = (id: number | undefined) => {
    const node = id === undefined ? undefined : byId.get(id);
    return node ? pathOf(node) : root;
  };
  // Flattened into runs, each owned by the innermost span open there (outer spans first at a tie).
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const starts: number[] = [];
  const paths: string[] = [];
  const open: TextSpan[] = [];
  const run = (at: number) => {
    starts.push(at);
    paths.push(owner(open.at(-1)?.node));
  };
  const closeUntil = (at: number) => {
    while (open.length && (open.at(-1) as TextSpan).end <= at) {
      const ended = open.pop() as TextSpan;
      run(ended.end);
    }
  };
  for (const span of sorted) {
    closeUntil(span.start);
    open.push(span);
    run(span.start);
  }
  closeUntil(Number.POSITIVE_INFINITY);
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
export function withNodePaths<T extends object>(result: T, spans: TextSpan[], nodes: TreeNode[]): T {
  const indicators = (result as { indicators?: unknown }).indicators;
  if (!Array.isArray(indicators) || nodes.length < 2) return result;
  const at = pathsInText(spans, nodes);
  for (const indicator of indicators as Located[])
    for (const l of indicator.locations ?? []) if (l.part === "content") l.path = at(l.offset);
  return result;
}
