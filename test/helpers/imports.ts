/**
 * The import graph of the repository's own TypeScript, read from the sources (TypeScript 7 has no
 * JS API yet, so the import cruisers on npm cannot read our files). Only relative imports count:
 * packages are outside the layers.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`, type-only ones included. */
const IMPORT =
  /(?:^|[\n;])\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']|(?:^|[\n;])\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every .ts file under `dirs` (relative to `root`), except fixtures. */
export function sourceFiles(root: string, dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    (readdirSync(path.join(root, dir), { recursive: true }) as string[])
      .filter((f) => f.endsWith(".ts") && !f.split(path.sep).includes("fixtures"))
      .map((f) => path.join(dir, f).split(path.sep).join("/")),
  );
}

/** file → the repository files it imports (paths relative to `root`, with "/"). */
export function importGraph(root: string, files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    const targets = [...text.matchAll(IMPORT)]
      .map((m) => m[1] ?? m[2] ?? m[3] ?? "")
      .filter((spec) => spec.startsWith("."))
      .map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The import circles (strongly connected components of more than one file, or a file importing itself). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let top = stack.pop()!; ; top = stack.pop()!) {
      onStack.delete(top);
      component.push(top);
      if (top === node) break;
    }
    if (component.length > 1 || graph.get(node)?.includes(node)) circles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}
