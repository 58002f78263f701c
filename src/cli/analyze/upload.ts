/**
 * A multipart upload over node:http with a known Content-Length, reporting the bytes sent as they
 * leave (fetch cannot tell). The service may answer before the body is all sent (a refused upload):
 * that answer is the one returned.
 */
import { randomBytes } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";

export interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export interface UploadOptions {
  url: URL;
  handle: FileHandle;
  filename: string;
  size: number;
  fields: Record<string, string>;
  signal: AbortSignal;
  onSent?: (bytes: number) => void;
}

/** Quotes a value for a Content-Disposition parameter the way browsers do (RFC 7578 §4.2). */
function quoted(value: string): string {
  return value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function multipartParts(fields: Record<string, string>, filename: string) {
  const boundary = `----loupe-${randomBytes(12).toString("hex")}`;
  const head = Object.entries(fields)
    .map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`,
    )
    .join("");
  const fileHead =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(filename)}"\r\n` +
    "Content-Type: application/octet-stream\r\n\r\n";
  return {
    boundary,
    preamble: Buffer.from(head + fileHead, "utf8"),
    epilogue: Buffer.from(`\r\n--${boundary}--\r\n`, "utf8"),
  };
}

async function readAnswer(res: IncomingMessage): Promise<Answer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) };
}

/** Writes the body, stopping early when the service has answered already. */
async function writeBody(
  req: http.ClientRequest,
  opts: UploadOptions,
  parts: ReturnType<typeof multipartParts>,
  answered: Promise<unknown>,
): Promise<void> {
  let stopped = false;
  void answered.then(
    () => {
      stopped = true;
    },
    () => {
      stopped = true;
    },
  );
  req.write(parts.preamble);
  let sent = 0;
  if (opts.size > 0) {
    const stream = opts.handle.createReadStream({ start: 0, end: opts.size - 1, autoClose: false });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (stopped) break;
      sent += chunk.length;
      if (!req.write(chunk)) await Promise.race([new Promise((r) => req.once("drain", r)), answered]);
      opts.onSent?.(sent);
    }
  }
  if (stopped) return;
  if (sent !== opts.size)
    throw new Error(`the file changed while it was read (${sent} of ${opts.size} bytes)`);
  req.end(parts.epilogue);
}

/** POSTs the file and the fields as multipart/form-data; resolves with the whole answer. */
export async function uploadFile(opts: UploadOptions): Promise<Answer> {
  const parts = multipartParts(opts.fields, opts.filename);
  const length = parts.preamble.length + opts.size + parts.epilogue.length;
  const client = opts.url.protocol === "https:" ? https : http;
  const req = client.request(opts.url, {
    method: "POST",
    signal: opts.signal,
    headers: {
      "content-type": `multipart/form-data; boundary=${parts.boundary}`,
      "content-length": String(length),
      accept: "application/json",
    },
  });
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    req.once("response", resolve);
    req.once("error", reject);
  });
  answered.catch(() => {});
  try {
    await writeBody(req, opts, parts, answered);
  } catch (err) {
    // A write refused because the service answered and closed: its answer is what matters.
    const early = await Promise.race([answered, new Promise<null>((r) => setTimeout(r, 1000, null))]).catch(
      () => null,
    );
    if (!early) {
      req.destroy();
      throw err;
    }
  }
  const answer = await readAnswer(await answered);
  if (!req.writableFinished) req.destroy(); // answered before the whole body was sent
  return answer;
}
