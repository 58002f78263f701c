/**
 * A thumbnail child process (forked by thumbnail-pool.ts): makes one thumbnail at a time and
 * answers over IPC. libvips decoders run native code that no timeout can interrupt and that can
 * crash; here, either costs this process and one request, never the files service.
 */
import sharp from "sharp";
import { bufferView } from "../../common/bytes.ts";
import { HttpError } from "../../common/errors.ts";
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

sharp.cache(false); // Inputs are one-off temp files: caching them only costs memory.
// One thumbnail at a time per process: libvips may still use several threads for it.
process.on("message", (task: ChildTask) => {
  const input = typeof task.input === "string" ? task.input : bufferView(task.input);
  makeThumbnail(input, task.req, task.limits).then(
    (png) => reply({ ok: true, png }),
    (err: unknown) => reply(toAnswer(err)),
  );
});
process.on("disconnect", () => process.exit(0));
process.send?.("ready");

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
