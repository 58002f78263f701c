/**
 * `POST /analyzer/all`: every processor on one upload (one transfer, one temp file, hashes once),
 * answered in Mandolin's Analysis shape with one entry per processor. Processors run side by side;
 * one whose required fields are missing (rulematch's `rules`) is left out by default. What several
 * need (the walk, the indicator scan) is done once below them, not here. The top-level `verdict`
 * folds every processor's findings (verdict.ts).
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { badRequest } from "../../common/errors.ts";
import { type App, MULTIPART_BODY } from "../../common/http.ts";
import { fastapiOperationId } from "../openapi-names.ts";
import { receiveUpload, type UploadedFile, type UploadLimits } from "../upload.ts";
import { type Entry, entryOf } from "./entries.ts";
import { entrySchema, FreeObject, type Processor, resultSchema } from "./processor.ts";
import { type Verdict, verdictOf, verdictSchema } from "./verdict.ts";

const ErrorSchema = Type.Object({ detail: Type.String(), code: Type.String() });

/** The processors named in `raw` (comma-separated, as the query or form field), or all of them. */
export function chooseProcessors(processors: Processor[], raw: string | undefined): Processor[] {
  if (raw === undefined || raw.trim() === "") return processors;
  const byName = new Map(processors.map((p) => [p.name, p]));
  const chosen = new Set<Processor>();
  for (const name of raw.split(",")) {
    const p = byName.get(name.trim());
    if (!p) {
      const shown = name.trim().slice(0, 64);
      throw badRequest(
        "unknown_processor",
        `Unknown processor "${shown}" in "processors"; choose among ${[...byName.keys()].join(", ")}.`,
      );
    }
    chosen.add(p);
  }
  return processors.filter((p) => chosen.has(p));
}

/**
 * Whether the form carries every field the processor's schema requires (rulematch's `rules`): by
 * default, `/analyzer/all` leaves out a processor that has nothing to work with; named, it runs
 * and refuses the missing field itself.
 */
function hasRequiredFields(p: Processor, fields: Record<string, string>): boolean {
  return (p.fields.required ?? []).every((key: string) => (fields[key] ?? "").trim() !== "");
}

/**
 * Every chosen processor side by side. Nothing here knows one from another: those that read the
 * same walk or node analysis share it (tree/walk.ts, tree/node-analyses.ts), so the file is
 * extracted once and its indicators scanned once.
 */
function runAll(
  chosen: Processor[],
  file: UploadedFile,
  fields: Record<string, string>,
  ctx: { log: FastifyBaseLogger; signal: AbortSignal; client?: string },
): Promise<Entry[]> {
  return Promise.all(chosen.map((p) => entryOf(p, () => p.run(file, fields, ctx), ctx)));
}

/** Each processor's findings, and a failed processor's absence, folded into the one verdict. */
function verdictFor(entries: Entry[], chosen: Processor[], file: UploadedFile): Verdict {
  const byName = new Map(chosen.map((p) => [p.name, p]));
  const findings = entries.flatMap((e) => {
    const p = byName.get(e.processor_name);
    if (!e.success) {
      const detail = `${e.processor_name} failed: ${e.error ?? e.error_short ?? "unknown error"}`;
      return [{ level: "incomplete" as const, path: file.filename, detail, processor: e.processor_name }];
    }
    return (p?.findings?.(e.analysis, file) ?? []).map((f) => ({ ...f, processor: e.processor_name }));
  });
  return verdictOf(findings);
}

function answer(entries: Entry[], verdict: Verdict) {
  const failed = entries.filter((e) => !e.success).map((e) => e.processor_name);
  const processors: Record<string, Entry> = {};
  let content: string | null = null;
  for (const { content: text, ...entry } of entries) {
    processors[entry.processor_name] = entry;
    if (content === null && typeof text === "string") content = text;
  }
  return {
    success: failed.length === 0,
    content,
    error: failed.length === 0 ? null : `These processors failed: ${failed.join(", ")}.`,
    error_short: failed.length === 0 ? null : "processor_failed",
    verdict,
    processors,
  };
}

/** Registers `POST /analyzer/all` over `processors` (the registry's, not Mandolin's aliases). */
export function addAllRoute(app: App, processors: Processor[], limits: UploadLimits): void {
  const fieldProps = Object.assign({}, ...processors.map((p) => p.fields.properties));
  for (const key of Object.keys(fieldProps)) fieldProps[key] = Type.Optional(fieldProps[key]);
  const processorsField = Type.String({
    description: `Comma-separated processors to run (default: all; rulematch only with "rules"): ${processors.map((p) => p.name).join(", ")}.`,
  });
  const operationId = fastapiOperationId("analyze_with_all", "/analyzer/all", "POST");
  app.addSchema({
    ...Type.Object(
      { file: Type.String({ format: "binary" }), processors: Type.Optional(processorsField), ...fieldProps },
      { required: ["file"] },
    ),
    $id: `Body_${operationId}`,
  });
  const result = resultSchema(entrySchema({ metadataSchema: FreeObject }, FreeObject));
  app.addSchema({
    ...Type.Object({ ...result.properties, verdict: verdictSchema }),
    $id: "Analysis_AllResult_",
  });
  app.post(
    "/analyzer/all",
    {
      schema: {
        summary: "Every processor on one upload, one entry each",
        operationId,
        tags: ["analyzers"],
        querystring: Type.Object({ processors: Type.Optional(processorsField) }),
        [MULTIPART_BODY]: Type.Ref(`Body_${operationId}`),
        response: { 200: Type.Ref("Analysis_AllResult_"), 400: ErrorSchema },
      },
    },
    async (req: FastifyRequest<{ Querystring: { processors?: string } }>, reply: FastifyReply) => {
      // Bad names in the query are refused before the upload is read.
      if (req.query.processors !== undefined) chooseProcessors(processors, req.query.processors);
      const upload = await receiveUpload(req, limits, {
        hash: processors.some((p) => p.needsHashes !== false),
      });
      const named = upload.fields.processors ?? req.query.processors;
      const chosen = named?.trim()
        ? chooseProcessors(processors, named)
        : processors.filter((p) => hasRequiredFields(p, upload.fields));
      const controller = new AbortController();
      // The request itself is closed once its body is read: only the response tells the client left.
      reply.raw.once("close", () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      const { processors: _, ...fields } = upload.fields;
      const entries = await runAll(chosen, upload.file, fields, { log: req.log, signal: controller.signal });
      return answer(entries, verdictFor(entries, chosen, upload.file));
    },
  );
}
