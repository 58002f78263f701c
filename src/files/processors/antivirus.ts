import { Type } from "typebox";
import type { FilesConfig } from "../config.ts";
import { notImplemented } from "./not-implemented.ts";
import type { Processor } from "./processor.ts";
import { antivirusAnalysis } from "./schemas.ts";

export function createAntivirusProcessor(_config: FilesConfig): Processor {
  return {
    name: "antivirus",
    url: "https://www.clamav.net/",
    description: "Antivirus scan by ClamAV (clamd, INSTREAM).",
    fields: Type.Object({}),
    metadataSchema: Type.Null(),
    analysisSchema: antivirusAnalysis,
    run: async () => notImplemented("antivirus"),
    engines: async () => ({ clamd: { ready: false, detail: "not built yet" } }),
  };
}
