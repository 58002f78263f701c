/**
 * What the files service's OpenAPI document says beyond each route's schema: the upload's own
 * 400 codes, the per-address limit (429), each operation's codes, and the checks made on form
 * fields and the thumbnail colour by the service itself (documented as constraints, so a client
 * sees them; the answers keep their own codes). test/common/contract.test.ts provokes each one.
 */
import type { ContractPolicy, FieldConstraint } from "../common/openapi-contract.ts";
import { fastapiOperationId } from "./openapi-names.ts";

const analyzer = (name: string) => fastapiOperationId(`analyze_with_${name}`, `/analyzer/${name}`, "POST");
const ALL = analyzer("all");
const THUMBNAIL = fastapiOperationId("generate_thumbnail", "/converter/thumbnail", "POST");

/** Colours the thumbnail surely accepts: none, #rgb(a), #rrggbb(aa), rgb()/rgba() and a few names (any CSS name works). */
const COLOR =
  "^\\s*(?:|transparent|black|white|red|green|blue|yellow|orange|purple|gray|grey|silver|navy|teal|maroon|olive|lime|aqua|fuchsia|" +
  "#(?:[0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})|" +
  "rgba?\\(\\s*\\d{1,3}\\s*,\\s*\\d{1,3}\\s*,\\s*\\d{1,3}\\s*(?:,\\s*(?:0|1|0?\\.\\d{1,3})\\s*)?\\))\\s*$";

const RULES_CODES = [
  "no_rules",
  "rules_too_large",
  "rules_too_complex",
  "module_not_allowed",
  "invalid_rules",
];

/** The 400 codes a processor's form field can bring (besides the upload's own). */
const FIELD_CODES: Record<string, string[]> = {
  rules: RULES_CODES,
  passwords: ["too_many_passwords"],
  private: ["invalid_field"],
};

/** `processors`: names of the registry, comma-separated (blank: all of them). */
function processorsPattern(names: string[]): string {
  const one = `\\s*(?:${names.join("|")})\\s*`;
  return `^(?:\\s*|${one}(?:,${one})*)$`;
}

/*
 * Extra form parts stay unconstrained: text fields are accepted (as FastAPI does) and a second file
 * part is refused (400 unexpected_file), but `additionalProperties: {type: string}` makes generated
 * TypeScript clients fail to type-check (their index signature conflicts with the file's Blob).
 */
const rulesNeeded: FieldConstraint = {
  in: "body",
  path: ["rules"],
  schema: { minLength: 1, pattern: "\\S" },
};

/** The contract of the routes made from `processors` (the registry) and `routed` (the registry and Mandolin's names). */
export function filesContract(
  processors: string[],
  routed: Array<{ name: string; fields: string[] }>,
): ContractPolicy {
  const names = {
    in: "body" as const,
    path: ["processors"],
    schema: { pattern: processorsPattern(processors) },
  };
  const ruleProcessors = routed.filter((r) => r.fields.includes("rules")).map((r) => r.name);
  const constraints: ContractPolicy["constraints"] = {
    [ALL]: [names, { ...names, in: "query" }],
    [THUMBNAIL]: [{ in: "query", path: ["color"], schema: { pattern: COLOR } }],
  };
  for (const name of ruleProcessors) constraints[analyzer(name)] = [rulesNeeded];
  const operations: ContractPolicy["operations"] = {
    [ALL]: {
      400: {
        meaning: "A processor named is unknown, or a field is refused",
        codes: ["unknown_processor", ...Object.values(FIELD_CODES).flat()],
      },
    },
    [THUMBNAIL]: {
      400: {
        meaning: "The image or the thumbnail asked for is refused",
        codes: [
          "unsupported_image",
          "corrupt_image",
          "image_too_large",
          "invalid_dimensions",
          "output_too_large",
          "invalid_color",
          "timeout",
          "decoder_crashed",
        ],
      },
    },
  };
  for (const r of routed) {
    const codes = r.fields.flatMap((f) => FIELD_CODES[f] ?? []);
    if (codes.length > 0) operations[analyzer(r.name)] = { 400: { meaning: "A field is refused", codes } };
  }
  return {
    every: {
      429: {
        meaning: "Too many requests from this address (LOUPE_RATE_LIMIT_PER_MINUTE); Retry-After says when",
        codes: ["rate_limited"],
      },
    },
    validation: { meaning: "The request does not match this schema", codes: ["invalid_request"] },
    withBody: {
      400: {
        meaning: "The upload is refused",
        codes: [
          "not_multipart",
          "invalid_multipart",
          "missing_file",
          "unexpected_file",
          "too_many_files",
          "too_many_fields",
          "duplicate_field",
          "field_too_large",
          "invalid_field",
          "file_too_large",
          "upload_aborted",
        ],
      },
    },
    operations,
    constraints,
  };
}
