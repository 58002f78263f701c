/**
 * A thumbnail child process (forked by thumbnail-pool.ts): makes one thumbnail at a time and
 * answers over IPC. libvips decoders run native code that no timeout can interrupt and that can
 * crash; here, either costs this process and one request, never the files service.
 */
import sharp from "sharp";
import { bufferView } from "../../common/bytes.ts";
import { HttpError } from "../../common/errors.ts";
import { readWhole } from "../sandbox/read-whole.ts";
import type { ThumbnailLimits } from "./limits.ts";
import { makeThumbnail, type ThumbnailRequest } from "./thumbnail.ts";

export interface ChildTask {
  input: string | Uint8Array;
  req: ThumbnailRequest;
  limits: ThumbnailLimits;
}

/** The first message of a child is "ready"; then one answer per task. */
export type ChildAnswer =
  | { ok: true; png: Uint8Array }
  | { ok: false; status: number; code: string; detail: string };

/**
 * Files up to this size are read whole, once, into a buffer this process reuses: from a path,
 * libvips' format search and the header read open and read the file again and again (≈ 136 system
 * calls per small image, against 4), and a fresh buffer pays a page fault per 4 KB. Larger files
 * stay paths, which libvips reads in strips without holding them whole.
 */
const READ_WHOLE_MAX = 64 * 1024 * 1024;

sharp.cache(false); // Inputs are one-off temp files: caching them only costs memory.
// One thumbnail at a time per process: libvips may still use several threads for it, and the
// reused read buffer is free again once the answer is sent.
process.on("message", (task: ChildTask) => {
  // Read inside the chain: a file that cannot be read is this request's error, not a crash.
  Promise.resolve()
    .then(() => makeThumbnail(inputOf(task), task.req, task.limits))
    .then(
      (png) => reply({ ok: true, png }),
      (err: unknown) => reply(toAnswer(err)),
    );
});
process.on("disconnect", () => process.exit(0));
process.send?.("ready");

function inputOf(task: ChildTask): string | Buffer {
  if (typeof task.input !== "string") return bufferView(task.input);
  return readWhole(task.input, READ_WHOLE_MAX) ?? task.input;
}

function reply(answer: ChildAnswer): void {
  process.send?.(answer);
}

function toAnswer(err: unknown): ChildAnswer {
  if (err instanceof HttpError) return { ok: false, status: err.status, code: err.code, detail: err.message };
  const detail = err instanceof Error ? err.message : String(err);
  return {
    ok: false,
    status: 400,
    code: "corrupt_image",
    detail: `The image could not be converted: ${detail}`,
  };
}
