/**
 * The bytes mandolin-python-client puts on the wire, rebuilt by hand so a test can replay them:
 * urllib3's multipart encoder (32-hex boundary, Content-Disposition then Content-Type, text
 * fields before the file), the generated client's headers, and http.client's defaults. Sent with
 * `node:http` so no header of ours is added.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import path from "node:path";

export interface WireAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The part a `(name, (filename, bytes, mimetype))` tuple becomes (urllib3 RequestField). */
export interface FilePart {
  filename: string;
  bytes: Buffer;
  /** What Python's `mimetypes.guess_type(filename)` gives, else application/octet-stream. */
  mimetype: string;
}

const GUESSED: Record<string, string> = {
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
  ".eml": "message/rfc822",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

/**
 * Colander writes the artifact to `NamedTemporaryFile(suffix=original_name)` and passes its path:
 * the client sends the temp file's base name (`tmp` + 8 random characters + the original name).
 */
export function colanderTempFile(originalName: string, bytes: Buffer): FilePart {
  const filename = `tmp${randomBytes(6).toString("base64url").slice(0, 8).toLowerCase()}${originalName}`;
  const mimetype = GUESSED[path.extname(filename).toLowerCase()] ?? "application/octet-stream";
  return { filename, bytes, mimetype };
}

/** urllib3's `format_multipart_header_param`: `"`, CR and LF percent-encoded (HTML5 style). */
const quoteParam = (value: string) =>
  value.replaceAll("\n", "%0A").replaceAll("\r", "%0D").replaceAll('"', "%22");

/** `encode_multipart_formdata(fields)`: form fields first, then files (the client's order). */
export function urllib3Multipart(
  fields: Array<[string, string]>,
  files: Array<[string, FilePart]>,
): { body: Buffer; contentType: string } {
  const boundary = randomBytes(16).toString("hex");
  const chunks: Buffer[] = [];
  for (const [name, value] of fields) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(name)}"\r\n\r\n`),
    );
    chunks.push(Buffer.from(value, "utf8"), Buffer.from("\r\n"));
  }
  for (const [name, part] of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(name)}"; filename="${quoteParam(part.filename)}"\r\nContent-Type: ${part.mimetype}\r\n\r\n`,
      ),
    );
    chunks.push(part.bytes, Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * One call as the generated client makes it: `Accept` is the first JSON type the operation lists
 * (`application/json` even for the thumbnail), the generator's User-Agent, and http.client's
 * `Accept-Encoding: identity`.
 */
export function clientCall(
  baseUrl: string,
  pathAndQuery: string,
  multipart: { body: Buffer; contentType: string },
): Promise<WireAnswer> {
  const url = new URL(pathAndQuery, baseUrl);
  const headers = {
    Host: url.host,
    "Accept-Encoding": "identity",
    "Content-Length": String(multipart.body.length),
    Accept: "application/json",
    "User-Agent": "OpenAPI-Generator/1.0.0/python",
    "Content-Type": multipart.contentType,
  };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(multipart.body);
  });
}
