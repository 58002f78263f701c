/**
 * The files service: one `POST /analyzer/<name>` route per registered processor, the thumbnail
 * converter, and a health check that reports each engine's readiness.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import sharp from "sharp";
import { Type } from "typebox";
import type { CommonConfig } from "../common/config.ts";
import { type App, createHttpServer, MULTIPART_BODY } from "../common/http.ts";
import type { Logger } from "../common/logger.ts";
import { VERSION } from "../common/version.ts";
import type { ClamdAddress } from "./clamd/client.ts";
import type { FilesConfig } from "./config.ts";
import { filesContract } from "./contract.ts";
import { sharpVersions } from "./converters/thumbnail.ts";
import { addThumbnailRoute } from "./converters/thumbnail-route.ts";
import { addAnalyzerComponents, addSharedComponents, nameOtherOperations } from "./openapi-names.ts";
import { addAllRoute } from "./processors/all.ts";
import { entryOf, singleAnswer } from "./processors/entries.ts";
import { mandolinAliases } from "./processors/mandolin.ts";
import type {
  EngineStatus,
  Processor,
  ProcessorContext,
  ProcessorOutput,
  StreamingRun,
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

/** Bytes of one upload held while its temp file is written, past which the socket is paused (100 MB: 578 ms at 16 KB, 368 ms at 1 MiB). */
const UPLOAD_WRITE_BUFFER = 1_048_576;

const ErrorSchema = Type.Object({ detail: Type.String(), code: Type.String() });
const fileField = Type.String({ format: "binary", description: "The file to analyse." });

export interface FilesServerOptions {
  common: CommonConfig;
  files: FilesConfig;
  logger: Logger;
  /** Replaces the default processors (tests). */
  processors?: Processor[];
  /** The clamd Loupe started itself, used when FILES_CLAMD_SOCKET/FILES_CLAMD_HOST are unset. */
  managedClamd?: ClamdAddress;
}

export async function buildFilesServer(opts: FilesServerOptions): Promise<App> {
  const { files: config } = opts;
  sharp.cache(false); // Inputs are one-off temp files: caching them only costs memory.
  const processors = opts.processors ?? createProcessors(config, opts.managedClamd);
  const routed = [...processors, ...mandolinAliases(processors)].map((p) => ({
    name: p.name,
    fields: Object.keys(p.fields.properties),
  }));
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
    contract: filesContract(
      processors.map((p) => p.name),
      routed,
    ),
  });
  const requestedLimits: UploadLimits = {
    maxFileSize: config.maxFileSize,
    maxFieldSize: config.maxFieldSize,
    tmpDir: config.tmpDir,
    memoryMax: config.uploadMemoryMax,
    writeBuffer: UPLOAD_WRITE_BUFFER,
  };
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

  addHealthRoute(app, processors);
  return app;
}

/** `GET /`: health and each engine's readiness, as the processors report them. */
function addHealthRoute(app: App, processors: Processor[]): void {
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
    async (req, reply) => {
      const controller = new AbortController();
      const ctx = { log: req.log, signal: controller.signal, client: req.ip };
      const { upload, streaming } = await receiveForProcessor(req, processor, limits, ctx);
      // The request itself is closed once its body is read: only the response tells the client left.
      reply.raw.once("close", () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      const started = performance.now();
      const entry = await entryOf(processor, () => runOn(processor, upload, streaming, ctx), ctx);
      req.log.debug({ processor: processor.name, ms: performance.now() - started }, "processed");
      return singleAnswer(entry);
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
