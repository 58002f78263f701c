/**
 * Mandolin's analyzer names beside Loupe's: `/analyzer/tika` and `/analyzer/yara` are views over
 * the extractor and rulematch processors — the same run, reshaped into what Mandolin answered
 * (Colander reads it) — never a second extraction or scan path.
 */
import type { Processor, ProcessorOutput } from "./processor.ts";
import { extractorAnalysis, rulematchAnalysis } from "./schemas.ts";

interface Alias {
  /** The Loupe processor the alias runs. */
  of: string;
  name: string;
  description: string;
  analysisSchema: Processor["analysisSchema"];
  adapt(output: ProcessorOutput): ProcessorOutput;
}

const ALIASES: Alias[] = [
  {
    of: "extractor",
    name: "tika",
    description:
      "Mandolin-compatible text and metadata extraction: Loupe's extractor, answered in Tika's result shape (GPS as geo.lat/geo.long).",
    analysisSchema: extractorAnalysis,
    adapt: (output) => ({ ...output, analysis: withTikaGeo(output.analysis as ExtractorAnalysis) }),
  },
  {
    of: "rulematch",
    name: "yara",
    description: "Mandolin-compatible YARA scan with the caller's rules (YARA-X): the rulematch analyzer.",
    analysisSchema: rulematchAnalysis,
    adapt: (output) => output,
  },
];

/** The Mandolin names for the processors present (an alias of a missing processor is left out). */
export function mandolinAliases(processors: Processor[]): Processor[] {
  const byName = new Map(processors.map((p) => [p.name, p]));
  return ALIASES.flatMap((alias) => {
    const inner = byName.get(alias.of);
    return inner ? [aliasOf(inner, alias)] : [];
  });
}

function aliasOf(inner: Processor, alias: Alias): Processor {
  const onBytes = inner.runOnBytes?.bind(inner);
  return {
    name: alias.name,
    url: `/analyzer/${alias.name}`,
    description: alias.description,
    needsHashes: inner.needsHashes,
    fields: inner.fields,
    metadataSchema: inner.metadataSchema,
    analysisSchema: alias.analysisSchema,
    run: async (file, fields, ctx) => alias.adapt(await inner.run(file, fields, ctx)),
    ...(onBytes && {
      runOnBytes: async (file, fields, ctx) => alias.adapt(await onBytes(file, fields, ctx)),
    }),
    // The engines are the inner processor's, reported once under its own name by `GET /`.
    engines: async () => ({}),
  };
}

interface ExtractorAnalysis {
  extra: Record<string, Record<string, unknown>>;
}

/**
 * Tika reports coordinates as `geo:lat` / `geo:long` (Mandolin turns them into `extra.geo.lat`,
 * the key Colander's artifact page puts on a map), as decimal strings: Tika's metadata values are
 * all strings, so we keep its type.
 */
function withTikaGeo(analysis: ExtractorAnalysis): ExtractorAnalysis {
  const gps = analysis.extra.gps;
  if (!gps || typeof gps.latitude !== "number" || typeof gps.longitude !== "number") return analysis;
  const geo: Record<string, string> = { lat: String(gps.latitude), long: String(gps.longitude) };
  if (typeof gps.altitude === "number") geo.alt = String(gps.altitude);
  return { ...analysis, extra: { ...analysis.extra, geo } };
}
