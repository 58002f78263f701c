/**
 * The multipart body of `POST /api/analyses/`: one file in the field `file`, streamed to the path
 * the analyses service gives while its sha256, sha1 and md5 are computed, plus the text fields
 * `password`, `rules`, `tlp` and `pap`. Any other field, a second file or a size past the limits is
 * refused (413 for sizes) before any work; a refused upload leaves no file behind.
 */
import { createHash, type Hash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import { badRequest, HttpError } from "../../common/errors.ts";
import type { App } from "../../common/http.ts";
import { multipartFault } from "../../common/multipart.ts";

export const UPLOAD_FIELDS = ["password", "rules", "tlp", "pap"] as const;
type FieldName = (typeof UPLOAD_FIELDS)[number];

export interface ReceivedUpload {
  name: string;
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
  fields: Partial<Record<FieldName, string>>;
}

export interface UploadLimits {
  maxFileBytes: number;
  maxFieldBytes: number;
}

/** Multipart parsing for the analyses scope only (the rest of the API reads JSON). */
export async function installAnalysisUploads(app: App, limits: UploadLimits): Promise<void> {
  await app.register(multipart, {
    // The name is kept whole (cleanFileName): busboy's own cut at the last slash would turn
    // `<b>bold</b>.zip` into `b>.zip`.
    preservePath: true,
    limits: {
      fileSize: limits.maxFileBytes,
      fieldSize: limits.maxFieldBytes,
      fields: UPLOAD_FIELDS.length,
      files: 1,
      parts: UPLOAD_FIELDS.length + 1,
      fieldNameSize: 100,
      headerPairs: 100,
    },
  });
}

class Hashing extends Transform {
  size = 0;
  readonly hashes: Record<"sha256" | "sha1" | "md5", Hash> = {
    sha256: createHash("sha256"),
    sha1: createHash("sha1"),
    md5: createHash("md5"),
  };
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    for (const h of Object.values(this.hashes)) h.update(chunk);
    done(null, chunk);
  }
}

const tooLarge = (what: string, limit: number, setting: string) =>
  new HttpError(413, `${what}_too_large`, `The ${what} is larger than ${limit} bytes (${setting}).`);

/** Reads the body into `target`; removes it and throws a 4xx when the body is refused. */
export async function receiveAnalysisUpload(
  req: FastifyRequest,
  target: string,
  limits: UploadLimits,
): Promise<ReceivedUpload> {
  if (!req.isMultipart())
    throw badRequest(
      "not_multipart",
      `Expected a multipart/form-data body with the file in the field "file", got ${req.headers["content-type"] ?? "no content type"}.`,
    );
  try {
    return await readParts(req, target, limits);
  } catch (err) {
    await rm(target, { force: true });
    throw translate(err, limits);
  }
}

async function readParts(req: FastifyRequest, target: string, limits: UploadLimits): Promise<ReceivedUpload> {
  const fields: ReceivedUpload["fields"] = {};
  let file: Omit<ReceivedUpload, "fields"> | undefined;
  for await (const part of req.parts()) {
    if (part.type === "field") {
      const name = part.fieldname as FieldName;
      if (!UPLOAD_FIELDS.includes(name))
        throw badRequest(
          "unknown_field",
          `Unknown field "${part.fieldname.slice(0, 64)}": send file, ${UPLOAD_FIELDS.join(", ")}.`,
        );
      if (part.valueTruncated)
        throw tooLarge("field", limits.maxFieldBytes, "INTEL_ANALYSIS_MAX_FIELD_BYTES");
      if (name in fields) throw badRequest("duplicate_field", `The field "${name}" was sent twice.`);
      fields[name] = String(part.value ?? "");
      continue;
    }
    if (part.fieldname !== "file") {
      part.file.resume();
      throw badRequest(
        "unexpected_file",
        `Files are accepted only in the field "file", not "${part.fieldname}".`,
      );
    }
    const hashing = new Hashing();
    await pipeline(part.file, hashing, createWriteStream(target, { flags: "wx", mode: 0o600 }));
    if (part.file.truncated) throw tooLarge("file", limits.maxFileBytes, "INTEL_ANALYSIS_MAX_BYTES");
    const digest = (k: keyof Hashing["hashes"]) => hashing.hashes[k].digest("hex");
    file = {
      name: part.filename ?? "",
      size: hashing.size,
      sha256: digest("sha256"),
      sha1: digest("sha1"),
      md5: digest("md5"),
    };
  }
  if (!file) throw badRequest("missing_file", `No file was sent: put it in the multipart field "file".`);
  return { ...file, fields };
}

function translate(err: unknown, limits: UploadLimits): unknown {
  if (err instanceof HttpError) return err;
  switch (multipartFault(err)?.kind) {
    case "file_too_large":
      return tooLarge("file", limits.maxFileBytes, "INTEL_ANALYSIS_MAX_BYTES");
    case "too_many_files":
      return badRequest("too_many_files", `Send exactly one file, in the field "file".`);
    case "too_many_fields":
      return badRequest("too_many_fields", `Too many form fields: send file, ${UPLOAD_FIELDS.join(", ")}.`);
    case "invalid_multipart":
      return badRequest("invalid_multipart", "The multipart body is malformed.");
    case "upload_aborted":
      return badRequest("upload_aborted", "The client closed the connection before the upload ended.");
    default:
      return err;
  }
}
