/**
 * Schemas of the files analyses routes: the multipart upload, an analysis, a page of the history,
 * an enrichment. They validate and document (OpenAPI) the same shapes the panel and scripts read.
 */
import { Type } from "typebox";

const Marking = (what: string) =>
  Type.String({
    maxLength: 32,
    description: `${what}: CLEAR, GREEN, AMBER, AMBER+STRICT or RED (case-insensitive); default INTEL_ANALYSIS_DEFAULT_${what} (RED). Its indicators are asked of vendors with it (POST …/enrich/).`,
  });

export const UploadBody = Type.Object({
  file: Type.String({ format: "binary", description: "The file to analyse (one)." }),
  password: Type.Optional(
    Type.String({
      description:
        "A password to open encrypted archives with (besides Loupe's list); never stored in the database.",
    }),
  ),
  rules: Type.Optional(Type.String({ description: "YARA rules run on the file and every child." })),
  tlp: Type.Optional(Marking("TLP")),
  pap: Type.Optional(Marking("PAP")),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const IndicatorSchema = Type.Object({
  super_type: Type.String(),
  type: Type.String(),
  value: Type.String(),
  paths: Type.Array(Type.String(), { description: "The node paths it was found at" }),
  request_id: Nullable(Type.String({ description: "GET /api/request/<id>/ has its whole answer" })),
  verdict: Type.Union(
    [
      Type.Literal("pending"),
      Type.Literal("found"),
      Type.Literal("not_found"),
      Type.Literal("failed"),
      Type.Literal("not_asked"),
    ],
    {
      description:
        "pending: asked, no answer yet; found: some source knows it; not_found: none does (or every one was skipped, see sources); failed: every vendor failed; not_asked: see error",
    },
  ),
  sources: Type.Record(Type.String(), Type.String(), {
    description: "Each source's outcome: ok, not_found, error, skipped (TLP/PAP)",
  }),
  error: Nullable(Type.String()),
});

const analysisFields = {
  id: Type.String(),
  name: Type.String({ description: "The file's name as sent (text, never markup)" }),
  sha256: Type.String(),
  sha1: Type.String(),
  md5: Type.String(),
  size: Type.Integer(),
  user: Nullable(Type.String()),
  created: Type.String({ format: "date-time" }),
  finished: Nullable(Type.String({ format: "date-time" })),
  status: Type.Union([Type.Literal("pending"), Type.Literal("done"), Type.Literal("failed")]),
  error: Nullable(Type.Object({ code: Type.String(), detail: Type.String() })),
  tlp: Type.String(),
  pap: Type.String(),
  verdict: Nullable(
    Type.String({ description: "malicious, suspicious, clean or incomplete (the files service's)" }),
  ),
  shared: Type.Boolean(),
  cached_from: Nullable(Type.String({ description: "The earlier analysis whose answer this upload reused" })),
  age_seconds: Nullable(Type.Integer({ description: "Seconds since the files service made this answer" })),
  file_kept: Type.Boolean({ description: "The file is kept (INTEL_ANALYSIS_KEEP_FILES)" }),
};

export const AnalysisSchema = Type.Object(
  {
    ...analysisFields,
    result: Type.Optional(
      Type.Unknown({
        description: "GET only: the files service's /analyzer/all answer (verdict, processors, the tree)",
      }),
    ),
    indicators: Type.Optional(
      Type.Array(IndicatorSchema, { description: "GET only: the enriched indicators" }),
    ),
    thumbnail: Type.Optional(
      Type.Boolean({
        description:
          "GET only: a PNG thumbnail of the file (an image) is at GET /api/analyses/<id>/thumbnail/",
      }),
    ),
  },
  { additionalProperties: true },
);

export const ListSchema = Type.Object({
  count: Type.Integer(),
  page: Type.Integer(),
  results: Type.Array(Type.Object(analysisFields)),
});

export const EnrichSchema = Type.Object({
  indicators: Type.Array(IndicatorSchema),
  left_out: Type.Integer({ description: "Indicators past INTEL_ANALYSIS_ENRICH_MAX, not asked" }),
});

const Day = Type.String({ format: "date", description: "YYYY-MM-DD (UTC)" });

export const ListQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({ maxLength: 256, description: "Part of any node's name, or a node's md5/sha1/sha256" }),
    ),
    verdict: Type.Optional(
      Type.Enum(["malicious", "suspicious", "clean", "incomplete"], { description: "Only this verdict" }),
    ),
    user: Type.Optional(Type.String({ maxLength: 150, description: "Only this user's analyses" })),
    from: Type.Optional(Day),
    to: Type.Optional(Type.String({ format: "date", description: "YYYY-MM-DD (UTC), inclusive" })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
    page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);
