import type { ClamdAddress } from "../clamd/client.ts";
import type { FilesConfig } from "../config.ts";
import { configuredClamd, createAntivirusProcessor } from "./antivirus.ts";
import { createExtractorProcessor } from "./extractor/index.ts";
import { createIocsProcessor } from "./iocs.ts";
import type { Processor } from "./processor.ts";
import { createRulematchProcessor } from "./rulematch/index.ts";
import { Walker } from "./tree/walk.ts";

/** Every analyzer of the files service; each becomes `POST /analyzer/<name>`. */
export function createProcessors(config: FilesConfig, managedClamd?: ClamdAddress): Processor[] {
  // One walk per upload, shared by the processors that read its tree.
  const walker = new Walker(config);
  const extractor = createExtractorProcessor(config, walker);
  const close = extractor.close?.bind(extractor);
  extractor.close = async () => {
    await Promise.all([close?.(), walker.close()]);
  };
  return [
    extractor,
    createAntivirusProcessor(config, configuredClamd(config, managedClamd), walker),
    createRulematchProcessor(config, walker),
    createIocsProcessor(config, extractor),
  ];
}
