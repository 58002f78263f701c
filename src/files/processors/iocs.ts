/**
 * `POST /analyzer/iocs`: indicators (URLs, domains, addresses, hashes, CVE ids, wallets, phones,
 * paths, registry keys) in everything the walk reads from the file and its children — text, title
 * and metadata — each content location with the path of its node. The scan is the node analysis
 * the extractor reports too (tree/node-analyses.ts): one walk and one scan per upload.
 */
import { Type } from "typebox";
import { badRequest } from "../../common/errors.ts";
import type { FilesConfig } from "../config.ts";
import { IocScanTimeout } from "../iocs/scanner.ts";
import { iocsAnalysis } from "../iocs/schema.ts";
import { passwordsFieldSchema } from "./extractor/passwords-field.ts";
import { type Processor, ProcessorFailure } from "./processor.ts";
import type { NodeAnalyses } from "./tree/node-analyses.ts";
import type { Walker } from "./tree/walk.ts";

function privateField(raw: string | undefined): boolean {
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw badRequest("invalid_field", 'The form field "private" must be "true" or "false".');
}

export function createIocsProcessor(config: FilesConfig, walker: Walker, analyses: NodeAnalyses): Processor {
  return {
    name: "iocs",
    url: "/analyzer/iocs",
    description:
      "Indicators of compromise in the file's text and metadata, refanged, validated, de-duplicated, typed for intel.",
    needsHashes: false,
    fields: Type.Object({
      passwords: passwordsFieldSchema,
      private: Type.Optional(
        Type.String({
          enum: ["true", "false"],
          description:
            'Also report private, loopback, reserved and documentation addresses and domains ("true").',
        }),
      ),
    }),
    metadataSchema: Type.Object({
      type: Type.String({ description: "MIME type the extractor detected." }),
    }),
    analysisSchema: iocsAnalysis,
    async run(file, fields, ctx) {
      const scan = analyses.iocs(privateField(fields.private));
      const walk = await walker.walk(file, walker.passwords(fields), ctx);
      if (!walk.ok) throw new ProcessorFailure("parse_error", walk.error);
      const found = await analyses
        .schedule(scan, file, Promise.resolve(walk), ctx.signal)
        .text?.catch((err: unknown) => {
          if (err instanceof IocScanTimeout) throw new ProcessorFailure("timeout", err.message);
          throw err;
        });
      return { content: null, metadata: { type: walk.type }, analysis: found };
    },
    async engines() {
      return {
        iocs: { ready: true, detail: `${analyses.iocThreads} of ${config.extractWorkers} workers started` },
      };
    },
    close: () => analyses.close(),
  };
}
