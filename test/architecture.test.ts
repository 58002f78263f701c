/**
 * The shape of the house (docs/architecture.md): layers point down only — cli → files | intel →
 * common; inside intel the doors (api, admin, server) → services → store, queue, connectors,
 * domain — there is no import circle, and tests never lean on benchmarks.
 */
import assert from "node:assert/strict";
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
