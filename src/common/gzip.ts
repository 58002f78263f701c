/**
 * Answers kept as bytes, sent gzipped to clients that accept it (python-requests, which Colander
 * uses, sends `Accept-Encoding: gzip, deflate` on every call). Each distinct Buffer is compressed
 * once, off the event loop, and reused while that Buffer lives: one compression per answer, not
 * per request. Text made per request (the panel's pages and JSON) is gzipped by an onSend hook at
 * the fastest level: a report page embeds its analysis, 1.5 MB for a 1,000-node tree.
 * Large answers arrive as slices (common/chunks.ts): compressed as a stream and sent
 * slice by slice, never joined on the event loop.
 */
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { constants, createGzip, gzip } from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Chunks, joined, sizeOf, streamOf } from "./chunks.ts";

const gzipAsync = promisify(gzip);

/** Below this, gzip's header and the client's work cost more than the bytes saved. */
const GZIP_MIN_BYTES = 1024;

const compressed = new WeakMap<Buffer | Chunks, Promise<Buffer | Chunks>>();

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

/** Slices gzipped as a stream, the output kept as the slices zlib gave (off the event loop, no join). */
async function gzipChunks(chunks: Chunks): Promise<Chunks> {
  const out: Buffer[] = [];
  await pipeline(
    streamOf(chunks),
    createGzip({ level: constants.Z_DEFAULT_COMPRESSION }),
    async (gzipped) => {
      for await (const c of gzipped) out.push(c as Buffer);
    },
  );
  return out;
}

/** `bytes` gzipped, compressed once per Buffer or list of slices (the same object is answered many times). */
function gzippedOnce(bytes: Buffer | Chunks): Promise<Buffer | Chunks> {
  let pending = compressed.get(bytes);
  if (!pending) {
    pending = Buffer.isBuffer(bytes)
      ? gzipAsync(bytes, { level: constants.Z_DEFAULT_COMPRESSION })
      : gzipChunks(bytes);
    compressed.set(bytes, pending);
  }
  return pending;
}

/**
 * Up to this size slices are sent as one Buffer, joined once per list of slices: a stream costs
 * more per request than the copy (a 54 KB cached answer: ≈ 55 µs more CPU as a stream,
 * docs/benchmarks.md). Larger bodies stream, never joined on the event loop.
 */
const JOIN_MAX_BYTES = 1024 * 1024;
const joinedBodies = new WeakMap<Chunks, Buffer>();

function joinedOnce(chunks: Chunks): Buffer {
  if (chunks.length === 1) return chunks[0] as Buffer;
  let whole = joinedBodies.get(chunks);
  if (!whole) {
    whole = joined(chunks);
    joinedBodies.set(chunks, whole);
  }
  return whole;
}

/** Sends a Buffer as it is, small slices as one Buffer, large ones as a stream of known length. */
function sendBody(reply: FastifyReply, body: Buffer | Chunks): FastifyReply {
  if (Buffer.isBuffer(body)) return reply.send(body);
  const size = sizeOf(body);
  if (size <= JOIN_MAX_BYTES) return reply.send(joinedOnce(body));
  return reply.header("content-length", String(size)).send(streamOf(body));
}

/** Sends bytes that are answered often, gzipped when the client accepts it and they are worth it. */
export async function sendBytes(
  req: FastifyRequest,
  reply: FastifyReply,
  bytes: Buffer | Chunks,
): Promise<FastifyReply> {
  reply.header("vary", "accept-encoding");
  const size = Buffer.isBuffer(bytes) ? bytes.length : sizeOf(bytes);
  if (size < GZIP_MIN_BYTES || !acceptsGzip(req.headers["accept-encoding"])) return sendBody(reply, bytes);
  return sendBody(reply.header("content-encoding", "gzip"), await gzippedOnce(bytes));
}

const TEXT_TYPES = /^(text\/html|application\/json)/;

/**
 * onSend hook: an HTML or JSON answer made as text, of GZIP_MIN_BYTES or more, gzipped (level 1:
 * made per request, so speed over ratio) when the client accepts it. Bytes (assets, sendBytes)
 * and answers already encoded pass as they are.
 */
export async function gzipText(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (typeof payload !== "string" || reply.getHeader("content-encoding")) return payload;
  if (!TEXT_TYPES.test(String(reply.getHeader("content-type") ?? ""))) return payload;
  reply.header("vary", "accept-encoding");
  if (payload.length < GZIP_MIN_BYTES || !acceptsGzip(req.headers["accept-encoding"])) return payload;
  reply.header("content-encoding", "gzip");
  return gzipAsync(payload, { level: constants.Z_BEST_SPEED });
}
