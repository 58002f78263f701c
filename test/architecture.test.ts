/**
 * The shape of the house (docs/architecture.md): imports point down only, by rules made from the
 * ordered lists of layers in helpers/layers.ts (the code base, intel, files); there is no import
 * circle, tests never lean on benchmarks, and every source file opens with a header comment.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../src/common/config.ts";
import {
  brokenBy,
  importCircles,
  importGraph,
  type LayerOrder,
  layerOf,
  layerRules,
  sourceFiles,
} from "./helpers/imports.ts";
import { FILES_LAYERS, INTEL_LAYERS, REPO_LAYERS } from "./helpers/layers.ts";

/** Each ordered list of layers, and the files that must all sit in one of its layers. */
const ORDERS: Array<{ name: string; order: LayerOrder; covers: string }> = [
  { name: "the code base", order: REPO_LAYERS, covers: "src/" },
  { name: "intel", order: INTEL_LAYERS, covers: "src/intel/" },
  { name: "files", order: FILES_LAYERS, covers: "src/files/" },
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

/**
 * The lines of a file that take the store's database handle (`store.db`, `{ db } = ….store`): the
 * doors hand their services to service functions and never hold a handle of their own.
 */
function dbHandlesIn(text: string): string[] {
  const handle = /\bstore\.db\b|\{[^}]*\bdb\b[^}]*\}\s*=\s*[\w.]*\bstore\b/;
  return text.split("\n").flatMap((line, i) => (handle.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
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

  for (const { name, order, covers } of ORDERS) {
    describe(`${name}: no import points up`, () => {
      for (const rule of layerRules(order)) {
        it(rule.name, () => {
          assert.deepEqual(brokenBy(graph, order, rule), []);
        });
      }

      it(`every file of ${covers} sits in a layer`, () => {
        const loose = [...graph.keys()].filter((f) => f.startsWith(covers) && !layerOf(f, order));
        assert.deepEqual(loose, []);
      });
    });
  }

  it("tests never depend on a benchmark", () => {
    const broken = [...graph].flatMap(([from, targets]) =>
      from.startsWith("test/")
        ? targets.filter((to) => to.startsWith("bench/")).map((to) => `${from} → ${to}`)
        : [],
    );
    assert.deepEqual(broken, []);
  });

  it("reports an import that points up (the layer check can fail)", () => {
    const wrong = new Map([
      ["src/intel/store/graph.ts", ["src/intel/domain/requests.ts", "src/intel/model/graph.ts"]],
      ["src/intel/admin/pages/users.ts", ["src/intel/store/accounts.ts", "src/intel/services/accounts.ts"]],
      ["src/intel/connectors/otx/index.ts", ["src/intel/store/db.ts"]],
      ["src/intel/domain/requests.ts", ["src/intel/queue/jobs.ts", "src/intel/config.ts"]],
    ]);
    const reported = layerRules(INTEL_LAYERS).flatMap((rule) =>
      brokenBy(wrong, INTEL_LAYERS, rule).map((edge) => `${rule.name}: ${edge}`),
    );
    assert.deepEqual(reported.sort(), [
      "connectors never imports store (its peer): src/intel/connectors/otx/index.ts → src/intel/store/db.ts",
      "doors reaches store only through services: src/intel/admin/pages/users.ts → src/intel/store/accounts.ts",
      "store never imports domain (above it): src/intel/store/graph.ts → src/intel/domain/requests.ts",
    ]);
  });

  it("makes one rule per pair from an ordered list (peers, closed and ground layers)", () => {
    const order: LayerOrder = [
      { name: "top", paths: ["t/"] },
      { name: "gate", paths: ["g/"], closed: true },
      [
        { name: "left", paths: ["l/", "g/special.ts"] },
        { name: "right", paths: ["r/"] },
      ],
      { name: "floor", paths: ["f/"], ground: true },
    ];
    assert.deepEqual(
      layerRules(order).map((r) => r.name),
      [
        "gate never imports top (above it)",
        "left never imports top (above it)",
        "left never imports gate (above it)",
        "left never imports right (its peer)",
        "right never imports top (above it)",
        "right never imports gate (above it)",
        "right never imports left (its peer)",
        "floor never imports top (above it)",
        "floor never imports gate (above it)",
        "floor never imports left (above it)",
        "floor never imports right (above it)",
        "top reaches left only through gate",
        "top reaches right only through gate",
      ],
    );
    assert.equal(layerOf("g/special.ts", order)?.name, "left");
    assert.equal(layerOf("g/other.ts", order)?.name, "gate");
    assert.equal(layerOf("x/other.ts", order), undefined);
  });

  it("no door holds the store's database handle", () => {
    const doors = [...graph.keys()].filter((f) => layerOf(f, INTEL_LAYERS)?.name === "doors");
    assert.ok(doors.length > 30, `only ${doors.length} door files read`);
    const held = doors.flatMap((file) =>
      dbHandlesIn(readFileSync(path.join(ROOT, file), "utf8")).map((line) => `${file}:${line}`),
    );
    assert.deepEqual(held, []);
  });

  it("finds a door's database handle (the check can fail)", () => {
    const door = [
      "const { db } = deps.services.store;",
      "await accounts.get(deps.services.store.db, id);",
      "const { store } = services; await createAccount(store.db, input);",
      "await accounts.get(deps.services, id); // the services, not a handle",
      'const file = "intel.db";',
    ].join("\n");
    assert.deepEqual(dbHandlesIn(door), [
      "1: const { db } = deps.services.store;",
      "2: await accounts.get(deps.services.store.db, id);",
      "3: const { store } = services; await createAccount(store.db, input);",
    ]);
  });

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
