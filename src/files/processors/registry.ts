/**
 * The files service's list of analyzers: one line per processor, and the server builds its route,
 * OpenAPI entry and health report from it. The extractor is built first: the IOC scanner reuses it.
 */
import type { ClamdAddress } from "../clamd/client.ts";
import type { FilesConfig } from "../config.ts";
import { configuredClamd, createAntivirusProcessor } from "./antivirus.ts";
import { createExtractorProcessor } from "./extractor/index.ts";
import { createIocsProcessor } from "./iocs.ts";
import type { Processor } from "./processor.ts";
import { createRulematchProcessor } from "./rulematch/index.ts";

/** Every analyzer of the files service; each becomes `POST /analyzer/<name>`. */
export function createProcessors(config: FilesConfig, managedClamd?: ClamdAddress): Processor[] {
  const extractor = createExtractorProcessor(config);
  return [
    extractor,
    createAntivirusProcessor(config, configuredClamd(config, managedClamd)),
    createRulematchProcessor(config),
    createIocsProcessor(config, extractor),
  ];
}
