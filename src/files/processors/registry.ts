import type { FilesConfig } from "../config.ts";
import { createAntivirusProcessor } from "./antivirus.ts";
import { createExtractorProcessor } from "./extractor/index.ts";
import type { Processor } from "./processor.ts";
import { createRulematchProcessor } from "./rulematch/index.ts";

/** Every analyzer of the files service; each becomes `POST /analyzer/<name>`. */
export function createProcessors(config: FilesConfig): Processor[] {
  return [
    createExtractorProcessor(config),
    createAntivirusProcessor(config),
    createRulematchProcessor(config),
  ];
}
