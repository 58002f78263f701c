/**
 * Answers kept as bytes, sent gzipped to clients that accept it (python-requests, which Colander
 * uses, sends `Accept-Encoding: gzip, deflate` on every call). Each distinct Buffer is compressed
 * once, off the event loop, and reused while that Buffer lives: one compression per answer, not
 * per request.
 */
import { promisify } from "node:util";
import { constants, gzip } from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";

const gzipAsync = promisify(gzip);

/** Below this, gzip's header and the client's work cost more than the bytes saved. */
const GZIP_MIN_BYTES = 1024;

const compressed = new WeakMap<Buffer, Promise<Buffer>>();

/** Whether an Accept-Encoding header allows gzip (RFC 9110 §12.5.3: `gzip`, `x-gzip` or `*`, with q > 0). */
function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(",") : (header ?? "");
  let gzipQ: number | undefined;
  let anyQ: number | undefined;
  for (const part of text.split(",")) {
    const [name = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (name === "gzip" || name === "x-gzip") gzipQ = Number.isNaN(q) ? 0 : q;
    else if (name === "*") anyQ = Number.isNaN(q) ? 0 : q;
  }
  return (gzipQ ?? anyQ ?? 0) > 0;
}

/** `bytes` gzipped, compressed once per Buffer (the same object is answered many times). */
function gzippedOnce(bytes: Buffer): Promise<Buffer> {
  let pending = compressed.get(bytes);
  if (!pending) {
    pending = gzipAsync(bytes, { level: constants.Z_DEFAULT_COMPRESSION });
    compressed.set(bytes, pending);
  }
  return pending;
}

/** Sends bytes that are answered often, gzipped when the client accepts it and they are worth it. */
export async function sendBytes(
  req: FastifyRequest,
  reply: FastifyReply,
  bytes: Buffer,
): Promise<FastifyReply> {
  reply.header("vary", "accept-encoding");
  if (bytes.length < GZIP_MIN_BYTES || !acceptsGzip(req.headers["accept-encoding"])) return reply.send(bytes);
  return reply.header("content-encoding", "gzip").send(await gzippedOnce(bytes));
}
