/**
 * `POST /converter/thumbnail`: the thumbnail converter owns its route and its content type (a PNG,
 * not an analysis entry); decoding runs in its worker pool, at most FILES_THUMBNAIL_CONCURRENCY at once.
 */
import pLimit from "p-limit";
import { Type } from "typebox";
import { type App, MULTIPART_BODY, PNG_RESPONSE } from "../../common/http.ts";
import type { FilesConfig } from "../config.ts";
import { receiveUpload, type UploadLimits } from "../upload.ts";
import { thumbnailQuerySchema } from "./thumbnail.ts";
import { createThumbnailPool } from "./thumbnail-pool.ts";

const ErrorSchema = Type.Object({ detail: Type.String(), code: Type.String() });
const fileField = Type.String({ format: "binary", description: "The file to analyse." });

export function addThumbnailRoute(app: App, config: FilesConfig, limits: UploadLimits): void {
  const decodeSlot = pLimit(config.thumbnailConcurrency);
  const thumbnails = createThumbnailPool({
    limits: {
      maxImagePixels: config.maxImagePixels,
      maxOutputPixels: config.maxThumbnailPixels,
      timeoutMs: config.thumbnailTimeoutMs,
    },
    idleMs: config.workerIdleMs,
  });
  app.addHook("onClose", thumbnails.close);
  app.post(
    "/converter/thumbnail",
    {
      schema: {
        summary: "PNG thumbnail of an image",
        querystring: thumbnailQuerySchema(config.maxThumbnailSide),
        [MULTIPART_BODY]: Type.Object({ file: fileField }, { required: ["file"] }),
        response: {
          200: PNG_RESPONSE,
          400: ErrorSchema,
        },
      },
    },
    async (req, reply) => {
      // Within FILES_UPLOAD_MEMORY_MAX (64 KiB by default) the image goes to the thumbnail process as bytes.
      const { file } = await receiveUpload(req, limits, { hash: false, memory: true });
      const png = await decodeSlot(() => thumbnails.run(file.bytes ?? file.path, req.query));
      return reply.type("image/png").send(png);
    },
  );
}
