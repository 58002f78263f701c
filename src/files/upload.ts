/**
 * The upload pipeline: a multipart body is streamed to a private temp file while its hashes are
 * computed; the upload is refused the moment it passes the size limit, and temp files are removed
 * whatever happens to the request (answered, failed, or aborted by the client). A route that can
 * work on bytes may ask for small bodies in memory: the decision is taken from Content-Length
 * before reading, since the HTTP parser never delivers more body than that header announced.
 */
import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rm, unlink } from "node:fs/promises";
import path from "node:path";
import { Transform, type TransformCallback, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import { badRequest, HttpError } from "../common/errors.ts";
import { cleanFileName } from "../common/file-names.ts";
import type { App } from "../common/http.ts";
import { multipartFault } from "../common/multipart.ts";
import { isAlive } from "../common/process.ts";
import { Scratch } from "./scratch.ts";
import { noteUploadProgress } from "./upload-gc.ts";

export interface FileHashes {
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
}

export interface UploadedFile {
  /** Private temp file holding the bytes; removed when the response is done. */
  path: string;
  /** The client's file name, reduced to its last path component, control characters removed. */
  filename: string;
  /** Content type the client declared (never trusted for detection). */
  declaredType: string;
  size: number;
  /** md5/sha1/sha256/sha512, computed while streaming, for the operations that report them. */
  hashes?: FileHashes;
  /**
   * A private folder beside the temp file (made when a walk needs it) for what is taken out of
   * the file (its children); removed with the temp file, for certain (scratch.ts).
   */
  scratch?: Scratch;
  /** Only an InMemoryFile has bytes: `file.bytes ?? file.path` is what to read. */
  bytes?: undefined;
}

/** An upload kept in memory (see `memoryMax`): the bytes, and no temp file. */
export interface InMemoryFile extends Omit<UploadedFile, "path" | "bytes" | "scratch"> {
  path?: undefined;
  bytes: Buffer;
}

/**
 * Asked for when the file part begins: a second destination of the bytes, written as they arrive
 * (before they reach the temp file), so work on them runs while the upload is still coming in.
 * It is destroyed if the upload fails or passes the size limit.
 */
export type UploadTap = () => Writable;

export interface Upload<F = UploadedFile> {
  file: F;
  /** Text form fields sent beside the file. */
  fields: Record<string, string>;
}

export interface UploadLimits {
  maxFileSize: number;
  maxFieldSize: number;
  tmpDir: string;
  /**
   * Bodies of at most this many bytes (Content-Length) are kept in memory for the routes that
   * ask for it: no temp file to create, write, reopen and remove. 0 turns it off.
   */
  memoryMax?: number;
  /**
   * Bytes of an upload held in memory while the temp file catches up (the write stream's buffer):
   * above it the socket is paused. Node's 16 KB default paused it for every 64 KB chunk. Large
   * bodies get more (writeBufferFor).
   */
  writeBuffer?: number;
}

/** 100 MB uploaded to a temp file: 578 ms (median of 9) with Node's 16 KB, 368 ms with 1 MiB (docs/benchmarks.md). */
export const DEFAULT_WRITE_BUFFER = 1024 * 1024;

/**
 * Bodies announcing at least LARGE_UPLOAD bytes get a write buffer of LARGE_WRITE_BUFFER: the
 * socket is paused 8× less often (100 MB: median upload 185 against 260 ms, server CPU 430 against
 * 570 ms per rule match; docs/benchmarks.md, "files: rule matching"), for 8 MiB held at most by
 * each such upload while the disk catches up.
 */
export const LARGE_UPLOAD = 32 * 1024 * 1024;
export const LARGE_WRITE_BUFFER = 8 * 1024 * 1024;

/** The write buffer for a body of `announced` bytes (its Content-Length; NaN when absent). */
export function writeBufferFor(announced: number, limits: Pick<UploadLimits, "writeBuffer">): number {
  const base = limits.writeBuffer ?? DEFAULT_WRITE_BUFFER;
  return announced >= LARGE_UPLOAD ? Math.max(base, LARGE_WRITE_BUFFER) : base;
}

const FILE_FIELD = "file";
const MAX_FIELDS = 16;

/**
 * Registers multipart parsing, a pass-through parser for other bodies (so we can answer 400), and
 * cleanup. Each process keeps its temp files in a folder of its own under `limits.tmpDir`, removed
 * on close; folders left by processes that died are swept at start. Returns the limits to use,
 * pointing at that folder.
 */
export async function installUploads(app: App, limits: UploadLimits): Promise<UploadLimits> {
  await mkdir(limits.tmpDir, { recursive: true, mode: 0o700 });
  await sweepDeadProcessFolders(limits.tmpDir);
  const ownDir = path.join(limits.tmpDir, `${process.pid}-${randomUUID().slice(0, 8)}`);
  await mkdir(ownDir, { mode: 0o700 });
  await app.register(multipart, {
    // The file name is text (cleanFileName): busboy's own cut at the last slash would turn
    // `<b>bold</b>.zip` into `b>.zip`.
    preservePath: true,
    limits: {
      fileSize: limits.maxFileSize,
      fieldSize: limits.maxFieldSize,
      fields: MAX_FIELDS,
      files: 1,
      parts: MAX_FIELDS + 1,
      fieldNameSize: 200,
      headerPairs: 100,
    },
  });
  // Any other body type reaches the handler unread; receiveUpload refuses it with a clear 400.
  app.addContentTypeParser("*", (_req, _payload, done) => done(null, undefined));
  app.decorateRequest("tempFiles", null);
  const pending = new Set<Promise<unknown>>();
  const cleanup = async (req: FastifyRequest) => {
    const files = req.tempFiles;
    if (!files) return;
    req.tempFiles = null;
    const removal = Promise.all(files.map((f) => (f instanceof Scratch ? f.remove() : removeTempFile(f))));
    pending.add(removal);
    await removal.finally(() => pending.delete(removal));
  };
  app.addHook("onResponse", cleanup);
  app.addHook("onRequestAbort", cleanup);
  // A client that leaves once its upload is in, while the handler is at work: the answer is never
  // sent, so `onResponse` never runs; the response closing unfinished says so.
  app.addHook("onRequest", (req, reply, done) => {
    reply.raw.once("close", () => {
      if (reply.raw.writableFinished) return;
      cleanup(req).catch((err: unknown) => req.log.error({ err }, "temp files not removed"));
    });
    done();
  });
  app.addHook("onClose", async () => {
    await Promise.allSettled(pending);
    await rm(ownDir, { recursive: true, force: true });
  });
  return { ...limits, tmpDir: ownDir };
}

/** The suffix of a temp file's scratch folder. */
const SCRATCH = ".children";

/** `unlink`, not `rm`: a temp file is a plain file, and `rm` costs two extra `lstat` per request. */
async function removeTempFile(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** Removes `<pid>-<id>` folders whose process no longer runs (a crash or SIGKILL left them). */
async function sweepDeadProcessFolders(parent: string): Promise<void> {
  for (const entry of await readdir(parent, { withFileTypes: true })) {
    const pid = Number(/^(\d+)-/.exec(entry.name)?.[1]);
    if (!entry.isDirectory() || !pid || isAlive(pid)) continue;
    await rm(path.join(parent, entry.name), { recursive: true, force: true });
  }
}

/**
 * Reads the multipart body of `req`: exactly one file in the field `file`, plus text fields.
 * Hashing costs CPU on large files, so only the operations that report hashes ask for it. With
 * `memory: true`, a body within `limits.memoryMax` comes back as bytes instead of a temp file.
 */
export function receiveUpload(
  req: FastifyRequest,
  limits: UploadLimits,
  opts: { hash: boolean; memory?: false; tap?: UploadTap },
): Promise<Upload>;
export function receiveUpload(
  req: FastifyRequest,
  limits: UploadLimits,
  opts: { hash: boolean; memory: true },
): Promise<Upload<UploadedFile | InMemoryFile>>;
export function receiveUpload(
  req: FastifyRequest,
  limits: UploadLimits,
  opts: { hash: boolean; memory?: boolean; tap?: UploadTap },
): Promise<Upload<UploadedFile | InMemoryFile>> {
  const length = Number(req.headers["content-length"]);
  const inMemory = opts.memory === true && length > 0 && length <= (limits.memoryMax ?? 0);
  const writeBuffer = writeBufferFor(length, limits);
  return readMultipart(req, limits, { hash: opts.hash, inMemory, tap: opts.tap, writeBuffer });
}

interface ReadOptions {
  hash: boolean;
  inMemory: boolean;
  tap: UploadTap | undefined;
  /** Bytes held while the temp file catches up (writeBufferFor). */
  writeBuffer: number;
}

async function readMultipart(
  req: FastifyRequest,
  limits: UploadLimits,
  opts: ReadOptions,
): Promise<Upload<UploadedFile | InMemoryFile>> {
  if (!req.isMultipart()) {
    throw badRequest(
      "not_multipart",
      `Expected a multipart/form-data body with the file in the field "${FILE_FIELD}", got ${req.headers["content-type"] ?? "no content type"}.`,
    );
  }
  const fields: Record<string, string> = {};
  let file: UploadedFile | InMemoryFile | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === "field") {
        if (part.fieldnameTruncated) throw badRequest("invalid_field", "A form field name is too long.");
        if (part.valueTruncated) {
          throw badRequest(
            "field_too_large",
            `The field "${part.fieldname}" is larger than ${limits.maxFieldSize} bytes.`,
          );
        }
        if (part.fieldname in fields)
          throw badRequest("duplicate_field", `The field "${part.fieldname}" was sent twice.`);
        fields[part.fieldname] = String(part.value ?? "");
        continue;
      }
      if (part.fieldname !== FILE_FIELD) {
        part.file.resume();
        throw badRequest(
          "unexpected_file",
          `Files are accepted only in the field "${FILE_FIELD}", not "${part.fieldname}".`,
        );
      }
      const described = {
        filename: cleanFileName(part.filename),
        declaredType: part.mimetype || DEFAULT_TYPE,
      };
      file =
        opts.inMemory && !opts.tap
          ? { ...described, ...(await readToMemory(part.file, opts.hash)) }
          : { ...described, ...(await saveToTempFile(req, part.file, limits, opts)) };
    }
  } catch (err) {
    throw translateMultipartError(err, limits);
  }
  if (!file)
    throw badRequest("missing_file", `No file was sent: put it in the multipart field "${FILE_FIELD}".`);
  return { file, fields };
}

const DEFAULT_TYPE = "application/octet-stream";

type Received<F> = Omit<F, "filename" | "declaredType">;

async function saveToTempFile(
  req: FastifyRequest,
  source: NodeJS.ReadableStream,
  limits: UploadLimits,
  opts: Pick<ReadOptions, "hash" | "tap" | "writeBuffer">,
): Promise<Received<UploadedFile>> {
  const tempPath = path.join(limits.tmpDir, randomUUID());
  const scratch = new Scratch(tempPath + SCRATCH);
  req.tempFiles ??= [];
  req.tempFiles.push(tempPath, scratch);
  const counter = opts.hash ? new HashingStream() : new CountingStream();
  const toDisk = createWriteStream(tempPath, {
    flags: "wx",
    mode: 0o600,
    highWaterMark: opts.writeBuffer,
  });
  if (!opts.tap) {
    await pipeline(source, counter, toDisk);
    return { path: tempPath, scratch, ...counted(counter) };
  }
  const tap = opts.tap();
  // Past the size limit the part is cut short: what the tap received is not the file.
  source.once("limit", () => tap.destroy());
  try {
    await pipeline(source, counter, new TeeStream(tap), toDisk);
  } catch (err) {
    tap.destroy();
    throw err;
  }
  return { path: tempPath, scratch, ...counted(counter) };
}

/**
 * The caller checked Content-Length against `memoryMax`, so this holds at most that much. Read
 * straight from the part (a file past the size limit errors it, as in a pipeline): a stream
 * pipeline cost more than the read itself on these small bodies (it builds an AbortError when done).
 */
async function readToMemory(source: NodeJS.ReadableStream, hash: boolean): Promise<Received<InMemoryFile>> {
  const digests = hash ? new Digests() : undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    size += chunk.length;
    digests?.update(chunk);
    chunks.push(chunk);
  }
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  return { bytes, size, ...(digests ? { hashes: digests.result() } : {}) };
}

function counted(counter: CountingStream): { size: number; hashes?: FileHashes } {
  return { size: counter.size, ...(counter instanceof HashingStream ? { hashes: counter.digests() } : {}) };
}

function translateMultipartError(err: unknown, limits: UploadLimits): unknown {
  if (err instanceof HttpError) return err;
  const fault = multipartFault(err);
  switch (fault?.kind) {
    case "file_too_large":
      return badRequest(
        "file_too_large",
        `The file is larger than the limit of ${limits.maxFileSize} bytes.`,
      );
    case "too_many_files":
      return badRequest("too_many_files", `Send exactly one file, in the field "${FILE_FIELD}".`);
    case "too_many_fields":
      return badRequest("too_many_fields", `Too many form fields (at most ${MAX_FIELDS}).`);
    case "invalid_multipart":
      return badRequest(
        "invalid_multipart",
        fault.message
          ? `The multipart body is malformed: ${fault.message}.`
          : "The multipart body is malformed.",
      );
    case "upload_aborted":
      return badRequest("upload_aborted", "The client closed the connection before the upload ended.");
    default:
      return err;
  }
}

class CountingStream extends Transform {
  size = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    noteUploadProgress(this.size, this.size + chunk.length);
    this.size += chunk.length;
    done(null, chunk);
  }
}

/** Passes each chunk on once `tap` has taken it too: the slower of the two sets the pace. */
class TeeStream extends Transform {
  private readonly tap: Writable;
  constructor(tap: Writable) {
    super();
    this.tap = tap;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const tap = this.tap;
    if (tap.destroyed || tap.writableEnded) {
      done(null, chunk);
      return;
    }
    // A tap destroyed mid-write may call back late, or never: whichever comes first goes on.
    let called = false;
    const next = () => {
      if (called) return;
      called = true;
      tap.off("close", next);
      done(null, chunk);
    };
    tap.once("close", next);
    tap.write(chunk, next);
  }

  override _flush(done: TransformCallback): void {
    if (!this.tap.destroyed) this.tap.end();
    done();
  }
}

/** md5, sha1, sha256 and sha512 of the bytes given so far. */
class Digests {
  private readonly md5 = createHash("md5");
  private readonly sha1 = createHash("sha1");
  private readonly sha256 = createHash("sha256");
  private readonly sha512 = createHash("sha512");

  update(chunk: Buffer): void {
    this.md5.update(chunk);
    this.sha1.update(chunk);
    this.sha256.update(chunk);
    this.sha512.update(chunk);
  }

  result(): FileHashes {
    return {
      md5: this.md5.digest("hex"),
      sha1: this.sha1.digest("hex"),
      sha256: this.sha256.digest("hex"),
      sha512: this.sha512.digest("hex"),
    };
  }
}

class HashingStream extends CountingStream {
  private readonly hashes = new Digests();

  override _transform(chunk: Buffer, enc: BufferEncoding, done: TransformCallback): void {
    this.hashes.update(chunk);
    super._transform(chunk, enc, done);
  }

  digests(): FileHashes {
    return this.hashes.result();
  }
}

declare module "fastify" {
  interface FastifyRequest {
    /** Temp files, and scratch folders, removed when the request ends. */
    tempFiles: Array<string | Scratch> | null;
  }
}
