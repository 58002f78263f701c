/**
 * The files service's list of analyzers: one line per processor, and the server builds its route,
 * OpenAPI entry and health report from it. The extractor is built first: the IOC scanner reuses it.
 */
import type { ClamdAddress } from "../clamd/client.ts";
import { type FilesConfig, WARM_THREADS } from "../config.ts";
import { IocScanner } from "../iocs/scanner.ts";
import { configuredClamd, createAntivirusProcessor } from "./antivirus.ts";
import { createExtractorProcessor } from "./extractor/index.ts";
import { createIocsProcessor } from "./iocs.ts";
import type { Processor } from "./processor.ts";
import { createRulematchProcessor } from "./rulematch/index.ts";
import { Walker } from "./tree/walk.ts";

/** Every analyzer of the files service; each becomes `POST /analyzer/<name>`. */
export function createProcessors(config: FilesConfig, managedClamd?: ClamdAddress): Processor[] {
  // One walk per upload, shared by the processors that read its tree; one indicator scanner pool.
  const walker = new Walker(config);
  const scanner = new IocScanner({
    threads: config.extractWorkers,
    minThreads: WARM_THREADS,
    idleMs: config.workerIdleMs,
    timeoutMs: config.iocTimeoutMs,
  });
  const extractor = createExtractorProcessor(config, walker, scanner);
  const close = extractor.close?.bind(extractor);
  extractor.close = async () => {
    await Promise.all([close?.(), walker.close(), scanner.close()]);
  };
  return [
    extractor,
    createAntivirusProcessor(config, configuredClamd(config, managedClamd), walker),
    createRulematchProcessor(config, walker),
    createIocsProcessor(config, extractor, scanner),
  ];
}
