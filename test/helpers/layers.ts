/**
 * The layers of the house, top down, as docs/architecture.md draws them: the one list
 * test/architecture.test.ts makes its rules from (a layer never imports one above it, nor a peer;
 * past a closed layer only through it). A new folder joins a layer here, or the test says so.
 */
import type { LayerOrder } from "./imports.ts";

/** The code base: the CLI above the two services, which never import each other, above common/. */
export const REPO_LAYERS: LayerOrder = [
  { name: "cli", paths: ["src/cli/"] },
  [
    { name: "files", paths: ["src/files/"] },
    { name: "intel", paths: ["src/intel/"] },
  ],
  { name: "common", paths: ["src/common/"] },
];

/**
 * Intel: the doors (API, panel, wiring, CLI) reach everything through the services; the store (SQL),
 * the connectors (vendors) and the settings are peers at the bottom, above the graph model.
 */
export const INTEL_LAYERS: LayerOrder = [
  { name: "doors", paths: ["src/intel/api/", "src/intel/admin/", "src/intel/server.ts", "src/cli/"] },
  { name: "services", paths: ["src/intel/services/"], closed: true },
  { name: "domain", paths: ["src/intel/domain/"] },
  { name: "queue", paths: ["src/intel/queue/"] },
  [
    { name: "store", paths: ["src/intel/store/"] },
    { name: "connectors", paths: ["src/intel/connectors/"] },
    { name: "settings", paths: ["src/intel/config.ts"], ground: true },
  ],
  { name: "model", paths: ["src/intel/model/"], ground: true },
];

/**
 * Files: the routes over the processors; a processor over the tree walker and the engines it
 * drives; every engine over the processor contract (its failure and status types), above the
 * upload, the sandbox and the settings.
 */
export const FILES_LAYERS: LayerOrder = [
  {
    name: "routes",
    paths: [
      "src/files/server.ts",
      "src/files/contract.ts",
      "src/files/openapi-names.ts",
      "src/files/converters/thumbnail-route.ts",
      "src/files/processors/all.ts",
      "src/files/processors/mandolin.ts",
    ],
  },
  {
    name: "processors",
    paths: [
      "src/files/processors/",
      "src/files/processors/extractor/index.ts",
      "src/files/processors/rulematch/index.ts",
    ],
  },
  { name: "tree", paths: ["src/files/processors/tree/"] },
  {
    name: "engines",
    paths: [
      "src/files/processors/extractor/",
      "src/files/processors/rulematch/",
      "src/files/executable/",
      "src/files/iocs/",
      "src/files/fuzzy/",
      "src/files/clamd/",
      "src/files/converters/",
    ],
  },
  {
    name: "processor contract",
    paths: ["src/files/processors/processor.ts", "src/files/processors/verdict.ts"],
  },
  {
    name: "ground",
    paths: [
      "src/files/upload.ts",
      "src/files/upload-gc.ts",
      "src/files/scratch.ts",
      "src/files/sandbox/",
      "src/files/config.ts",
    ],
  },
];
