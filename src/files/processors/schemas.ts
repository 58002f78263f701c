/** The final result schemas of the analyzers; they feed validation-free docs and serialization. */
import { Type } from "typebox";
import { executableSchema } from "../executable/schema.ts";
import { FreeObject } from "./processor.ts";

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const extractorAnalysis = Type.Object({
  content_length: Type.Integer({ description: "File size in bytes." }),
  created: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  title: nullableString,
  type: Type.String({ description: "MIME type detected from the content." }),
  language: Type.Union([Type.String({ description: "ISO 639-1 code" }), Type.Null()]),
  extra: Type.Object(
    { executable: Type.Optional(executableSchema) },
    { additionalProperties: FreeObject, description: "Other metadata, grouped by namespace." },
  ),
});

export const antivirusAnalysis = Type.Object({
  infected: Type.Boolean(),
  description: Type.Union([Type.String({ description: "Signature name." }), Type.Null()]),
  filename: Type.String(),
  extra: Type.Union([FreeObject, Type.Null()]),
});

/**
 * The parts of a YARA result, shared by rulematch and Mandolin's yara: registered once as named
 * schemas (Mandolin's models YaraMatch, YaraString, YaraStringInstance) and referenced by name.
 */
export const yaraComponents = [
  Type.Object(
    {
      offset: Type.Integer(),
      matched_length: Type.Integer(),
      plaintext: Type.String({ description: "Matched bytes as text, undecodable bytes escaped, capped." }),
    },
    { $id: "YaraStringInstance" },
  ),
  Type.Object(
    { identifier: Type.String(), instances: Type.Array(Type.Ref("YaraStringInstance")) },
    { $id: "YaraString" },
  ),
  Type.Object(
    {
      rule: Type.String(),
      tags: Type.Array(Type.String()),
      namespace: Type.String(),
      meta: FreeObject,
      strings: Type.Array(Type.Ref("YaraString")),
      path: Type.Optional(
        Type.String({
          description: "The child it matched in (`invoice.zip › payload.exe`); absent: the file itself.",
        }),
      ),
    },
    { $id: "YaraMatch" },
  ),
];

export const rulematchAnalysis = Type.Object({
  rules: Type.String({ description: "The YARA source that was run." }),
  matches: Type.Array(Type.Ref("YaraMatch")),
  not_scanned: Type.Optional(
    Type.Array(Type.Object({ path: Type.String(), reason: Type.String() }), {
      description: "Children of the file the rules could not be run on, and why.",
    }),
  ),
});

export const rulematchMetadata = Type.Object({
  warnings: Type.Array(Type.String(), { description: "Compiler warnings." }),
  rules_cached: Type.Boolean({ description: "True when the compiled rules came from the cache." }),
  compile_ms: Type.Number(),
  scan_ms: Type.Number(),
  console: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "What the rules printed with the `console` module (only when FILES_RULES_MODULES allows it).",
    }),
  ),
  console_truncated: Type.Optional(
    Type.Boolean({ description: "True when `console` was cut at FILES_RULES_CONSOLE_MAX_CHARS." }),
  ),
});
