/**
 * The BMP decoding pool: bmp-ts runs in worker threads, never on the event loop. Threads start
 * on the first BMP and stop when idle; a decode past its deadline is ended by terminating its
 * thread (a JavaScript loop cannot be interrupted any other way).
 */
import os from "node:os";
import { Piscina } from "piscina";
import { badRequest, type HttpError } from "../../common/errors.ts";
import type { BmpTask } from "./bmp-worker.ts";
import type { Size } from "./geometry.ts";
import { thumbnailTimeout } from "./limits.ts";

let pool: Piscina<BmpTask, Uint8Array> | undefined;

function bmpPool(): Piscina<BmpTask, Uint8Array> {
  pool ??= new Piscina<BmpTask, Uint8Array>({
    filename: new URL("./bmp-worker.ts", import.meta.url).href,
    minThreads: 0,
    maxThreads: os.availableParallelism(),
    idleTimeout: 10_000,
    // Pixels live outside the V8 heap (their size is checked from the header); the heap holds little.
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  return pool;
}

/** Decodes a BMP (a path or bytes) to RGBA in a worker; 400 when malformed or past the deadline. */
export async function decodeBmpInWorker(
  input: string | Buffer,
  size: Size,
  deadline: AbortSignal,
  timeoutMs: number,
): Promise<Buffer> {
  let data: Uint8Array;
  try {
    data = await bmpPool().run(input, { signal: deadline });
  } catch (err) {
    throw failure(err, deadline, timeoutMs);
  }
  if (data.byteLength !== size.width * size.height * 4) {
    throw badRequest("corrupt_image", "The BMP decoder returned pixels of another size than its header's.");
  }
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function failure(err: unknown, deadline: AbortSignal, timeoutMs: number): HttpError {
  if (deadline.aborted) return thumbnailTimeout(timeoutMs);
  const message = err instanceof Error ? err.message : String(err);
  return badRequest("corrupt_image", `The BMP decoder failed on this image: ${message}`);
}

/** Stops the pool's threads (on server close). */
export async function closeBmpDecoder(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
