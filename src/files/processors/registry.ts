/**
 * The files service's list of analyzers: one line per processor, and the server builds its route,
 * OpenAPI entry and health report from it. The processors that read an upload's tree share one
 * walker (one extraction per upload) and one set of node analyses (one pool each).
 */
import type { ClamdAddress } from "../clamd/client.ts";
import type { FilesConfig } from "../config.ts";
import { configuredClamd, createAntivirusProcessor } from "./antivirus.ts";
import { createExtractorProcessor } from "./extractor/index.ts";
import { createIocsProcessor } from "./iocs.ts";
import type { Processor } from "./processor.ts";
import { createRulematchProcessor } from "./rulematch/index.ts";
import { NodeAnalyses } from "./tree/node-analyses.ts";
import { Walker } from "./tree/walk.ts";

/** Every analyzer of the files service; each becomes `POST /analyzer/<name>`. */
export function createProcessors(config: FilesConfig, managedClamd?: ClamdAddress): Processor[] {
  const walker = new Walker(config);
  const analyses = new NodeAnalyses(config);
  const extractor = createExtractorProcessor(config, walker, analyses);
  // The walker's processes stop with the extractor (the analyses stop once, whoever asks first).
  extractor.close = async () => {
    await Promise.all([analyses.close(), walker.close()]);
  };
  return [
    extractor,
    createAntivirusProcessor(config, configuredClamd(config, managedClamd), walker),
    createRulematchProcessor(config, walker),
    createIocsProcessor(config, walker, analyses),
  ];
}
