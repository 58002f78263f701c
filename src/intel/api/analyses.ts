/**
 * The files analyses routes (docs/api.md, "Files analyses"): upload (202, or 200 from the cache),
 * read, its thumbnail, list with search, enrich through intel, share. Parsing and serialisation only; the rules
 * are in services/analyses.ts. Registered in the API's scope: the same keys and per-key limits.
 */
import { Type } from "typebox";
import { sendBytes } from "../../common/gzip.ts";
import { type App, MULTIPART_BODY, PNG_RESPONSE } from "../../common/http.ts";
import type { Analyses, Viewer } from "../services/analyses.ts";
import { AnalysisSchema, EnrichSchema, ListQuery, ListSchema, UploadBody } from "./analysis-schemas.ts";
import { installAnalysisUploads, receiveAnalysisUpload } from "./analysis-upload.ts";
import { ErrorBody } from "./schemas.ts";

const tags = ["analyses"];
const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });

export interface AnalysesDeps {
  analyses: Analyses;
  limits: { maxFileBytes: number; maxFieldBytes: number };
}

function viewer(req: { user?: Viewer }): Viewer {
  // The API scope's key check sets it before any route runs.
  return req.user as Viewer;
}

export async function registerAnalyses(app: App, deps: AnalysesDeps): Promise<void> {
  await app.register(async (scope) => {
    const api = scope as unknown as App;
    await installAnalysisUploads(api, deps.limits);
    registerUpload(api, deps);
  });
  registerReads(app, deps);
  registerActions(app, deps);
}

function registerUpload(app: App, deps: AnalysesDeps): void {
  app.post(
    "/api/analyses/",
    {
      schema: {
        tags,
        operationId: "create_analysis",
        summary:
          "Analyse a file with the files service: 202 with the pending analysis, or 200 with the whole analysis when the same file was analysed with the same rules within INTEL_ANALYSIS_CACHE_SECONDS",
        [MULTIPART_BODY]: UploadBody,
        response: {
          200: AnalysisSchema,
          202: AnalysisSchema,
          400: ErrorBody,
          413: ErrorBody,
          503: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      // A files service that cannot answer is said before the body is read.
      await deps.analyses.checkFilesService();
      const target = await deps.analyses.newUpload();
      const upload = await receiveAnalysisUpload(req, target.path, deps.limits);
      const created = await deps.analyses.create(viewer(req), { ...upload, ...target });
      if (created.status === 200)
        return sendBytes(
          req,
          reply.code(200).type("application/json; charset=utf-8"),
          Buffer.from(created.json),
        );
      return reply
        .code(202)
        .header("location", `/api/analyses/${created.analysis.id}/`)
        .send(created.analysis);
    },
  );
}

function registerReads(app: App, deps: AnalysesDeps): void {
  app.get(
    "/api/analyses/",
    {
      schema: {
        tags,
        operationId: "list_analyses",
        summary:
          "Analyses this key's user may see (its own and shared ones; an administrator sees all), newest first; `q` matches the name or md5/sha1/sha256 of any node of each tree",
        querystring: ListQuery,
        response: { 200: ListSchema, 400: ErrorBody },
      },
    },
    async (req) =>
      deps.analyses.list(viewer(req), {
        q: req.query.q,
        verdict: req.query.verdict,
        user: req.query.user,
        from: req.query.from,
        to: req.query.to,
        page: req.query.page ?? 1,
        pageSize: req.query.page_size ?? 20,
      }),
  );
  app.get(
    "/api/analyses/:id/",
    {
      schema: {
        tags,
        operationId: "get_analysis",
        summary:
          "One analysis: its facts, marking, verdict, the files service's whole answer (`result`, the tree) and its enriched indicators with their verdicts; the JSON download",
        params: Params,
        response: { 200: AnalysisSchema, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const json = await deps.analyses.get(viewer(req), req.params.id);
      return sendBytes(req, reply.type("application/json; charset=utf-8"), Buffer.from(json));
    },
  );
  app.get(
    "/api/analyses/:id/thumbnail/",
    {
      schema: {
        tags,
        operationId: "get_analysis_thumbnail",
        summary:
          "The PNG thumbnail kept with an analysis of an image (at most INTEL_ANALYSIS_THUMBNAIL_SIDE pixels a side); 404 no_thumbnail when the file is not an image",
        params: Params,
        response: {
          200: PNG_RESPONSE,
          404: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const png = await deps.analyses.thumbnail(viewer(req), req.params.id);
      return reply.type("image/png").header("cache-control", "private, max-age=3600").send(png);
    },
  );
}

function registerActions(app: App, deps: AnalysesDeps): void {
  app.post(
    "/api/analyses/:id/enrich/",
    {
      schema: {
        tags,
        operationId: "enrich_analysis",
        summary:
          "Ask intel about the indicators found in the tree (at most INTEL_ANALYSIS_ENRICH_MAX) with the analysis' TLP/PAP; each indicator's request and verdict so far",
        params: Params,
        response: { 200: EnrichSchema, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (req) => deps.analyses.enrich(viewer(req), req.params.id),
  );
  app.post(
    "/api/analyses/:id/share/",
    {
      schema: {
        tags,
        operationId: "share_analysis",
        summary: "An administrator shares an analysis with every user (`shared: false` takes it back)",
        params: Params,
        body: Type.Object(
          { shared: Type.Optional(Type.Boolean({ default: true })) },
          { additionalProperties: false },
        ),
        response: { 200: AnalysisSchema, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => deps.analyses.share(viewer(req), req.params.id, req.body?.shared ?? true),
  );
}
