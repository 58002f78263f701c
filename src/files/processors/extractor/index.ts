import { Type } from "typebox";
import type { FilesConfig } from "../../config.ts";
import { notImplemented } from "../not-implemented.ts";
import type { Processor } from "../processor.ts";
import { extractorAnalysis } from "../schemas.ts";

export function createExtractorProcessor(_config: FilesConfig): Processor {
  return {
    name: "extractor",
    url: "https://github.com/loupe-project/loupe/blob/main/docs/extraction.md",
    description: "Text and metadata extraction.",
    fields: Type.Object({}),
    metadataSchema: Type.Null(),
    analysisSchema: extractorAnalysis,
    run: async () => notImplemented("extractor"),
    engines: async () => ({ extractor: { ready: false, detail: "not built yet" } }),
  };
}
