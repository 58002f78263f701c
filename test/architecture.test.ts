/**
 * The shape of the house (docs/architecture.md): layers point down only — cli → files | intel →
 * common; inside intel the doors (api, admin, server) → services → store, queue, connectors,
 * domain — there is no import circle, tests never lean on benchmarks, and every source file opens
 * with a header comment saying what it is for.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../src/common/config.ts";
import { importCircles, importGraph, sourceFiles } from "./helpers/imports.ts";

interface Rule {
  name: string;
  from: RegExp;
  to: RegExp;
}

const RULES: Rule[] = [
  {
    name: "common knows neither service nor the CLI",
    from: /^src\/common\//,
    to: /^src\/(cli|files|intel)\//,
  },
  { name: "the services never reach into the CLI", from: /^src\/(files|intel)\//, to: /^src\/cli\// },
  { name: "files knows nothing of intel", from: /^src\/files\//, to: /^src\/intel\// },
  { name: "intel knows nothing of files", from: /^src\/intel\//, to: /^src\/files\// },
  {
    name: "nothing below the doors calls a door",
    from: /^src\/intel\/(store|queue|connectors|domain|services)\//,
    to: /^src\/intel\/(api\/|admin\/|server\.ts)/,
  },
  {
    name: "store, queue, connectors and domain never call the services",
    from: /^src\/intel\/(store|queue|connectors|domain)\//,
    to: /^src\/intel\/services\//,
  },
  { name: "the store knows no domain rule", from: /^src\/intel\/store\//, to: /^src\/intel\/domain\// },
  {
    name: "the doors (API, panel, CLI) reach intel's data through its services",
    from: /^src\/(cli|intel\/admin|intel\/api)\//,
    to: /^src\/intel\/store\//,
  },
  { name: "tests never depend on a benchmark", from: /^test\//, to: /^bench\// },
];

const graph = importGraph(ROOT, sourceFiles(ROOT, ["src", "test", "bench"]));

/** Shortest header worth the name: a sentence on what the file is for, not a label. */
const MIN_HEADER_CHARS = 30;

/** Why a file's text does not open with a header comment (after an optional shebang), or undefined. */
function headerProblem(text: string): string | undefined {
  const body = text.replace(/^#!.*\n/, "").trimStart();
  const comment = /^\/\*[\s\S]*?\*\//.exec(body)?.[0] ?? /^(?:\/\/.*(?:\n|$))+/.exec(body)?.[0];
  if (!comment) return `opens with \`${body.split("\n", 1)[0]?.slice(0, 60)}\`, not a comment`;
  const words = comment.replace(/[/*\s]+/g, " ").trim();
  return words.length < MIN_HEADER_CHARS ? `its header says only "${words}"` : undefined;
}

/** Our own code in src/ (TypeScript, the panel's scripts and stylesheet), without vendors' recorded answers. */
function ownSourceFiles(): string[] {
  return (readdirSync(path.join(ROOT, "src"), { recursive: true }) as string[])
    .filter((f) => /\.(ts|js|css)$/.test(f) && !f.split(path.sep).includes("fixtures"))
    .map((f) => `src/${f.split(path.sep).join("/")}`);
}

describe("architecture", () => {
  it("reads the whole import graph", () => {
    assert.ok(graph.size > 150, `only ${graph.size} files read`);
    assert.ok(graph.get("src/intel/server.ts")?.includes("src/intel/services/index.ts"));
  });

  for (const rule of RULES) {
    it(rule.name, () => {
      const broken = [...graph].flatMap(([from, targets]) =>
        rule.from.test(from) ? targets.filter((to) => rule.to.test(to)).map((to) => `${from} → ${to}`) : [],
      );
      assert.deepEqual(broken, []);
    });
  }

  it("has no import circle in src", () => {
    const src = new Map([...graph].filter(([file]) => file.startsWith("src/")));
    assert.deepEqual(importCircles(src), []);
  });

  it("every source file opens with a header comment", () => {
    const files = ownSourceFiles();
    assert.ok(files.length > 200, `only ${files.length} files read`);
    const missing = files.flatMap((file) => {
      const problem = headerProblem(readFileSync(path.join(ROOT, file), "utf8"));
      return problem ? [`${file}: ${problem}`] : [];
    });
    assert.deepEqual(missing, []);
  });

  it("tells a header from code or a label (the check can fail)", () => {
    const header =
      "/**\n * What this is for, and the one decision a reader would not guess.\n */\nconst x = 1;\n";
    assert.equal(headerProblem(header), undefined);
    assert.equal(headerProblem(`#!/usr/bin/env node\n${header}`), undefined);
    assert.equal(
      headerProblem("// What this is for, and why it is done this way.\n// More.\nx();"),
      undefined,
    );
    assert.match(headerProblem('import os from "node:os";\n/** Later. */') ?? "", /not a comment/);
    assert.match(headerProblem("/** Helpers. */\nexport {};") ?? "", /says only "Helpers\."/);
  });

  it("finds a circle when there is one (the check can fail)", () => {
    const circular = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    assert.deepEqual(importCircles(circular), [["a.ts", "b.ts", "c.ts"]]);
  });
});
