/**
 * The files service: one `POST /analyzer/<name>` route per registered processor, the thumbnail
 * converter, and a health check that reports each engine's readiness.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import pLimit from "p-limit";
import sharp from "sharp";
import { Type } from "typebox";
import type { CommonConfig } from "../common/config.ts";
import { HttpError } from "../common/errors.ts";
import { type App, createHttpServer, MULTIPART_BODY } from "../common/http.ts";
import type { Logger } from "../common/logger.ts";
import { VERSION } from "../common/version.ts";
import type { ClamdAddress } from "./clamd/client.ts";
import type { FilesConfig } from "./config.ts";
import { sharpVersions, thumbnailQuerySchema } from "./converters/thumbnail.ts";
import { createThumbnailPool } from "./converters/thumbnail-pool.ts";
import { addAnalyzerComponents, addSharedComponents, nameOtherOperations } from "./openapi-names.ts";
import { addAllRoute } from "./processors/all.ts";
import { mandolinAliases } from "./processors/mandolin.ts";
import {
  type EngineStatus,
  type Processor,
  type ProcessorContext,
  ProcessorFailure,
  type ProcessorOutput,
  type StreamingRun,
} from "./processors/processor.ts";
import { createProcessors } from "./processors/registry.ts";
import {
  type InMemoryFile,
  installUploads,
  receiveUpload,
  type Upload,
  type UploadedFile,
  type UploadLimits,
} from "./upload.ts";

const ErrorSchema = Type.Object({ detail: Type.String(), code: Type.String() });
const fileField = Type.String({ format: "binary", description: "The file to analyse." });

export interface FilesServerOptions {
  common: CommonConfig;
  files: FilesConfig;
  logger: Logger;
  /** Replaces the default processors (tests). */
  processors?: Processor[];
  /** The clamd Loupe started itself, used when CLAMD_SOCKET/CLAMD_HOST are unset. */
  managedClamd?: ClamdAddress;
}

export async function buildFilesServer(opts: FilesServerOptions): Promise<App> {
  const { files: config } = opts;
  sharp.cache(false); // Inputs are one-off temp files: caching them only costs memory.
  const app = await createHttpServer({
    name: "files",
    version: VERSION,
    description: "File analysis: content and metadata extraction, antivirus, YARA rule matching, thumbnails.",
    logger: opts.logger,
    specPath: "/openapi.json",
    docsPath: "/docs",
    rateLimitPerMinute: opts.common.rateLimitPerMinute,
    timeouts: opts.common.timeouts,
    metricsToken: opts.common.metricsToken,
  });
  const requestedLimits: UploadLimits = {
    maxFileSize: config.maxFileSize,
    maxFieldSize: config.maxFieldSize,
    tmpDir: config.tmpDir,
    memoryMax: config.uploadMemoryMax,
    writeBuffer: config.uploadWriteBuffer,
  };
  const processors = opts.processors ?? createProcessors(config, opts.managedClamd);
  app.addHook("onClose", async () => {
    await Promise.all(processors.map((p) => p.close?.()));
  });
  nameOtherOperations(app);

  await app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const limits = await installUploads(scope, requestedLimits);
    // A refused upload may still be streaming in: close the connection so the client stops sending.
    scope.addHook("onError", async (_req, reply) => {
      reply.header("connection", "close");
    });
    addSharedComponents(scope);
    for (const processor of processors) addProcessorRoute(scope, processor, limits);
    for (const alias of mandolinAliases(processors)) addProcessorRoute(scope, alias, limits);
    addAllRoute(scope, processors, limits);
    addThumbnailRoute(scope, config, limits);
  });

  app.get(
    "/",
    {
      schema: {
        summary: "Health and engine readiness",
        response: {
          200: Type.Object({
            status: Type.String(),
            service: Type.String(),
            version: Type.String(),
            engines: Type.Record(
              Type.String(),
              Type.Object({
                ready: Type.Boolean(),
                version: Type.Optional(Type.String()),
                detail: Type.Optional(Type.String()),
                retired_workers: Type.Optional(Type.Integer()),
              }),
            ),
          }),
        },
      },
    },
    async () => {
      const engines: Record<string, EngineStatus> = { sharp: { ready: true, version: sharpVersions().vips } };
      const reports = await Promise.all(processors.map((p) => p.engines().catch(engineFailure)));
      for (const report of reports) Object.assign(engines, report);
      return { status: "ok", service: "files", version: VERSION, engines };
    },
  );
  return app;
}

function engineFailure(err: unknown): Record<string, EngineStatus> {
  return { unknown: { ready: false, detail: String(err) } };
}

function addProcessorRoute(app: App, processor: Processor, limits: UploadLimits): void {
  const body = Type.Object(
    { file: fileField, ...processor.fields.properties },
    { required: ["file", ...(processor.fields.required ?? [])] },
  );
  const refs = addAnalyzerComponents(app, processor, body);
  app.post(
    `/analyzer/${processor.name}`,
    {
      schema: {
        summary: processor.description,
        operationId: refs.operationId,
        tags: ["analyzers"],
        [MULTIPART_BODY]: refs.body,
        response: { 200: refs.answer, 400: ErrorSchema, 501: ErrorSchema },
      },
    },
    async (req) => {
      const controller = new AbortController();
      const ctx = { log: req.log, signal: controller.signal };
      const { upload, streaming } = await receiveForProcessor(req, processor, limits, ctx);
      req.raw.once("close", () => controller.abort());
      const started = performance.now();
      let output: ProcessorOutput;
      try {
        output = await runOn(processor, upload, streaming, ctx);
      } catch (err) {
        if (err instanceof HttpError) throw err;
        const failure = err instanceof ProcessorFailure ? err : unexpectedFailure(req.log, processor, err);
        return failedResult(processor, failure);
      }
      req.log.debug({ processor: processor.name, ms: performance.now() - started }, "processed");
      return {
        success: true,
        content: output.content,
        error: null,
        error_short: null,
        processors: {
          [processor.name]: {
            ...entryHeader(processor),
            success: true,
            error: null,
            error_short: null,
            metadata: output.metadata,
            analysis: output.analysis,
          },
        },
      };
    },
  );
}

/** The processor's work on the upload, however it was received. */
function runOn(
  processor: Processor,
  { file, fields }: Upload<UploadedFile | InMemoryFile>,
  streaming: StreamingRun | undefined,
  ctx: ProcessorContext,
): Promise<ProcessorOutput> {
  if (file.bytes) {
    if (!processor.runOnBytes) throw new Error(`${processor.name} was given bytes it cannot read`);
    return processor.runOnBytes(file, fields, ctx);
  }
  return streaming ? streaming.finish(file, fields) : processor.run(file, fields, ctx);
}

/**
 * The upload, fed to the processor while it arrives when the processor can work that way, or
 * kept in memory when small and the processor works on bytes.
 */
async function receiveForProcessor(
  req: FastifyRequest,
  processor: Processor,
  limits: UploadLimits,
  ctx: ProcessorContext,
): Promise<{ upload: Upload<UploadedFile | InMemoryFile>; streaming: StreamingRun | undefined }> {
  const hash = processor.needsHashes !== false;
  if (processor.runOnBytes) {
    return { upload: await receiveUpload(req, limits, { hash, memory: true }), streaming: undefined };
  }
  let streaming: StreamingRun | undefined;
  const startRun = processor.startRun?.bind(processor);
  const tap =
    startRun &&
    (() => {
      streaming = startRun(ctx);
      return streaming.sink;
    });
  try {
    const upload = await receiveUpload(req, limits, { hash, tap });
    return { upload, streaming };
  } catch (err) {
    streaming?.sink.destroy();
    throw err;
  }
}

function unexpectedFailure(log: FastifyBaseLogger, processor: Processor, err: unknown): ProcessorFailure {
  log.error({ err, processor: processor.name }, "processor failed unexpectedly");
  return new ProcessorFailure("internal_error", `The ${processor.name} processor failed: ${String(err)}`);
}

function entryHeader(p: Processor) {
  return { processor_name: p.name, processor_url: p.url, processor_description: p.description };
}

function failedResult(processor: Processor, failure: ProcessorFailure) {
  return {
    success: false,
    content: null,
    error: failure.message,
    error_short: failure.short,
    processors: {
      [processor.name]: {
        ...entryHeader(processor),
        success: false,
        error: failure.message,
        error_short: failure.short,
        metadata: null,
        analysis: null,
      },
    },
  };
}

function addThumbnailRoute(app: App, config: FilesConfig, limits: UploadLimits): void {
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
          200: Type.Any({
            description: "The thumbnail",
            content: { "image/png": { schema: { type: "string", format: "binary" } } },
          }),
          400: ErrorSchema,
        },
      },
    },
    async (req, reply) => {
      // Within UPLOAD_MEMORY_MAX (64 KiB by default) the image goes to the thumbnail process as bytes.
      const { file } = await receiveUpload(req, limits, { hash: false, memory: true });
      const png = await decodeSlot(() => thumbnails.run(file.bytes ?? file.path, req.query));
      return reply.type("image/png").send(png);
    },
  );
}
