/**
 * `POST /analyzer/iocs`: indicators (URLs, domains, addresses, hashes, CVE ids, wallets, phones,
 * paths, registry keys) in everything the extractor reads from the file — its text, title and
 * metadata. It runs the extractor it is given, so both share one worker pool and its limits.
 */
import { Type } from "typebox";
import { badRequest } from "../../common/errors.ts";
import type { FilesConfig } from "../config.ts";
import { iocOptions } from "../iocs/options.ts";
import { extractionParts } from "../iocs/parts.ts";
import { type IocScanner, IocScanTimeout } from "../iocs/scanner.ts";
import { iocsAnalysis } from "../iocs/schema.ts";
import { passwordsFieldSchema } from "./extractor/passwords-field.ts";
import { type Processor, ProcessorFailure, type ProcessorOutput } from "./processor.ts";

function privateField(raw: string | undefined): boolean {
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw badRequest("invalid_field", 'The form field "private" must be "true" or "false".');
}

/** `scanner`: the one indicator scanner pool, shared with the extractor (which scans with the defaults). */
export function createIocsProcessor(
  config: FilesConfig,
  extractor: Processor,
  scanner: IocScanner,
): Processor {
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
    // The extractor already scanned with the default options.
    derivedFrom: {
      processor: extractor.name,
      derive: (analysis, fields) => (privateField(fields.private) ? null : fromExtraction(analysis)),
    },
    async run(file, fields, ctx) {
      const includePrivate = privateField(fields.private);
      const passwords: Record<string, string> =
        fields.passwords === undefined ? {} : { passwords: fields.passwords };
      const out = await extractor.run(file, passwords, ctx);
      const analysis = out.analysis as ExtractorAnalysis;
      const metadata = { type: analysis.type ?? "application/octet-stream" };
      const done = includePrivate ? null : fromExtraction(analysis);
      if (done) return done;
      const parts = extractionParts({ content: out.content, title: analysis.title, extra: analysis.extra });
      return {
        content: null,
        metadata,
        analysis: await scanner
          .scan(parts, iocOptions(config, includePrivate), ctx.signal)
          .catch((err: unknown) => {
            if (err instanceof IocScanTimeout) throw new ProcessorFailure("timeout", err.message);
            throw err;
          }),
      };
    },
    async engines() {
      return {
        iocs: { ready: true, detail: `${scanner.threads} of ${config.extractWorkers} workers started` },
      };
    },
  };
}

type ExtractorAnalysis = { title?: string | null; type?: string; extra?: Record<string, unknown> };

/** The entry read from the extractor's own scan (default options), or null when it has none. */
function fromExtraction(analysis: unknown): ProcessorOutput | null {
  const a = analysis as ExtractorAnalysis;
  const done = a.extra?.iocs as { indicators?: unknown } | undefined;
  if (!done?.indicators) return null;
  return { content: null, metadata: { type: a.type ?? "application/octet-stream" }, analysis: done };
}
