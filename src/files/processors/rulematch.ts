import { Type } from "typebox";
import type { FilesConfig } from "../config.ts";
import { notImplemented } from "./not-implemented.ts";
import type { Processor } from "./processor.ts";
import { rulematchAnalysis, rulematchMetadata } from "./schemas.ts";

export function createRulematchProcessor(_config: FilesConfig): Processor {
  return {
    name: "rulematch",
    url: "https://virustotal.github.io/yara-x/",
    description: "Scan with the caller's YARA rules (YARA-X).",
    fields: Type.Object({ rules: Type.String({ description: "YARA rules source." }) }),
    metadataSchema: rulematchMetadata,
    analysisSchema: rulematchAnalysis,
    run: async () => notImplemented("rulematch"),
    engines: async () => ({ yara: { ready: false, detail: "not built yet" } }),
  };
}
