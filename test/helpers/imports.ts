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

/**
 * One layer of an ordered list: a name and the files it holds (a folder ends with "/"; a file
 * belongs to the layer holding the longest path that matches it). `closed`: the layers above it
 * reach the ones below only through it. `ground`: every layer above may import it (even past a
 * closed layer).
 */
export interface Layer {
  name: string;
  paths: string[];
  closed?: boolean;
  ground?: boolean;
}

/** Layers from the top down; a level holding several layers holds peers, which never import each other. */
export type LayerOrder = ReadonlyArray<Layer | readonly Layer[]>;

/** "Files of `from` never import files of `to`", with the reason in its name. */
export interface LayerRule {
  name: string;
  from: Layer;
  to: Layer;
}

const levelsOf = (order: LayerOrder): Layer[][] =>
  order.map((level) => ("name" in level ? [level] : [...level]));

/**
 * The rules an ordered list of layers makes: no layer imports one above it, nor a peer, nor (past
 * a closed layer) one below the closed layer that is not ground.
 */
export function layerRules(order: LayerOrder): LayerRule[] {
  const levels = levelsOf(order);
  const rules: LayerRule[] = [];
  levels.forEach((level, i) => {
    for (const from of level) {
      for (const above of levels.slice(0, i).flat())
        rules.push({ name: `${from.name} never imports ${above.name} (above it)`, from, to: above });
      for (const peer of level.filter((l) => l !== from))
        rules.push({ name: `${from.name} never imports ${peer.name} (its peer)`, from, to: peer });
    }
  });
  levels.forEach((level, c) => {
    for (const closed of level.filter((l) => l.closed)) {
      const below = levels
        .slice(c + 1)
        .flat()
        .filter((l) => !l.ground);
      for (const from of levels.slice(0, c).flat())
        for (const to of below)
          rules.push({ name: `${from.name} reaches ${to.name} only through ${closed.name}`, from, to });
    }
  });
  return rules;
}

/** The layer a file belongs to (the one holding the longest path that matches it), if any. */
export function layerOf(file: string, order: LayerOrder): Layer | undefined {
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of levelsOf(order).flat())
    for (const p of layer.paths)
      if ((p.endsWith("/") ? file.startsWith(p) : file === p) && p.length > (best?.length ?? -1))
        best = { layer, length: p.length };
  return best?.layer;
}

/** The imports of `graph` that break `rule`, as "from → to". */
export function brokenBy(graph: Map<string, string[]>, order: LayerOrder, rule: LayerRule): string[] {
  return [...graph].flatMap(([from, targets]) =>
    layerOf(from, order) === rule.from
      ? targets.filter((to) => layerOf(to, order) === rule.to).map((to) => `${from} → ${to}`)
      : [],
  );
}
