/**
 * What went wrong in a multipart body, read from @fastify/multipart's errors once for both
 * services; each service words its own answer (its limits and settings differ). A parser error
 * without a code is recognised by its message, which is then kept for the answer.
 */

export type MultipartFaultKind =
  | "file_too_large"
  | "too_many_files"
  | "too_many_fields"
  | "invalid_multipart"
  /** The client hung up mid-body (Node's "aborted"): its fault, not ours, and nobody hears the answer. */
  | "upload_aborted";

export interface MultipartFault {
  kind: MultipartFaultKind;
  /** The parser's own message, when only the message said the body was malformed. */
  message?: string;
}

const KIND_BY_CODE = new Map<string, MultipartFaultKind>([
  ["FST_REQ_FILE_TOO_LARGE", "file_too_large"],
  ["FST_FILES_LIMIT", "too_many_files"],
  ["FST_FIELDS_LIMIT", "too_many_fields"],
  ["FST_PARTS_LIMIT", "too_many_fields"],
  ["FST_INVALID_MULTIPART_CONTENT_TYPE", "invalid_multipart"],
  ["FST_PROTO_VIOLATION", "invalid_multipart"],
  ["ECONNRESET", "upload_aborted"],
]);

/** The fault `err` reports, or undefined when it is not a fault of the multipart body. */
export function multipartFault(err: unknown): MultipartFault | undefined {
  const code = (err as { code?: string }).code;
  const kind = code === undefined ? undefined : KIND_BY_CODE.get(code);
  if (kind) return { kind };
  const message = (err as Error).message ?? String(err);
  if (/multipart|boundary|unexpected end|part terminated/i.test(message))
    return { kind: "invalid_multipart", message };
  return undefined;
}
