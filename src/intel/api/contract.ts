/**
 * What the intel API's OpenAPI document says beyond each route's schema: every operation needs a
 * key (401) and can meet the per-key limit (429) or a database away for a moment (503); each
 * operation's own statuses and 400 codes; the checks the service makes itself, as constraints.
 * test/common/contract.test.ts provokes each status and checks it is documented here.
 */
import type { ContractPolicy } from "../../common/openapi-contract.ts";
import { SUPER_TYPES } from "../model/taxonomy.ts";

/** `observable` → `[Oo][Bb]…`: the super types, matched as the service does (trimmed, any case). */
function anyCase(words: string[]): string {
  const letters = (w: string) =>
    [...w]
      .map((c) =>
        c.toLowerCase() === c.toUpperCase()
          ? c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
          : `[${c.toUpperCase()}${c.toLowerCase()}]`,
      )
      .join("");
  return `^\\s*(?:${words.map(letters).join("|")})\\s*$`;
}

const notFound = { meaning: "Not found", codes: ["not_found"] };

export const INTEL_CONTRACT: ContractPolicy = {
  security: [{ tokenAuth: [] }],
  every: {
    401: { meaning: "No API key, or not a valid one", codes: ["not_authenticated", "invalid_token"] },
    429: {
      meaning:
        "Too many requests from this key (INTEL_KEY_RATE_LIMIT_PER_MINUTE) or address (LOUPE_RATE_LIMIT_PER_MINUTE); Retry-After says when",
      codes: ["rate_limited"],
    },
    503: {
      meaning: "The database is unavailable for a moment; Retry-After says when",
      codes: ["database_unavailable"],
    },
  },
  validation: { meaning: "The request does not match this schema", codes: ["invalid_request"] },
  withBody: {
    400: { meaning: "The body is not JSON", codes: ["ctp_invalid_json_body", "ctp_empty_json_body"] },
    413: { meaning: "The body is larger than the service accepts", codes: ["ctp_body_too_large"] },
    415: { meaning: "The body is not application/json", codes: ["ctp_invalid_media_type"] },
  },
  operations: {
    ask_about_subject: {
      400: {
        meaning: "The subject or the options are refused",
        codes: [
          "unknown_super_type",
          "unknown_type",
          "invalid_value",
          "value_too_long",
          "unknown_vendor",
          "vendor_not_applicable",
          "invalid_tlp",
          "invalid_pap",
        ],
      },
      502: { meaning: "Every vendor failed for this subject", codes: ["vendors_failed"] },
    },
    ask_about_subjects: {
      400: { meaning: "No subject is valid (see `rejected`)", codes: ["no_valid_subject"] },
      413: { meaning: "More subjects than INTEL_BULK_MAX", codes: ["too_many_subjects"] },
    },
    get_request: {
      404: notFound,
      409: {
        meaning: "With `format`: the request has no result to export (yet, or ever)",
        codes: ["request_not_finished", "request_not_succeeded"],
      },
    },
    get_batch: { 404: notFound },
    set_webhook: {
      400: {
        meaning: "The URL cannot be a webhook",
        codes: ["invalid_webhook_url", "webhook_unresolvable", "webhook_address_refused"],
      },
    },
    create_analysis: {
      400: {
        meaning: "The upload is refused",
        codes: [
          "not_multipart",
          "invalid_multipart",
          "upload_aborted",
          "missing_file",
          "unexpected_file",
          "too_many_files",
          "too_many_fields",
          "duplicate_field",
          "unknown_field",
          "invalid_tlp",
          "invalid_pap",
        ],
      },
      413: {
        meaning: "The file is over INTEL_ANALYSIS_MAX_BYTES, or a field over INTEL_ANALYSIS_MAX_FIELD_BYTES",
        codes: ["file_too_large", "field_too_large"],
      },
      503: {
        meaning:
          "No files service is configured (FILES_URL=none), or it does not answer: the detail says how to set FILES_URL",
        codes: ["files_service_not_configured", "files_service_unavailable"],
      },
    },
    get_analysis: { 404: notFound },
    get_analysis_thumbnail: {
      404: {
        meaning: "No analysis with this id that this key may see, or it has no thumbnail (not an image)",
        codes: ["not_found", "no_thumbnail"],
      },
    },
    enrich_analysis: {
      404: notFound,
      409: { meaning: "The analysis is pending or failed: nothing to enrich", codes: ["analysis_not_done"] },
    },
    share_analysis: {
      403: { meaning: "Only an administrator may share an analysis", codes: ["admin_only"] },
      404: notFound,
    },
    get_webhook: { 404: { meaning: "This key has no webhook", codes: ["not_found"] } },
    delete_webhook: {
      204: { meaning: "Removed", codes: [] },
      404: { meaning: "This key has no webhook", codes: ["not_found"] },
    },
  },
  constraints: {
    ask_about_subject: [
      { in: "body", path: ["super_type"], schema: { pattern: anyCase(SUPER_TYPES.map((s) => s.shortName)) } },
    ],
    set_webhook: [
      { in: "body", path: ["url"], schema: { format: "uri", pattern: "^\\s*[Hh][Tt][Tt][Pp][Ss]?://" } },
    ],
  },
};
