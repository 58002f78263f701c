/**
 * Bulk asks: `POST /api/requests/` (many subjects, each checked like a single ask) and
 * `GET /api/batches/<id>/` (progress, and the results page by page).
 */
import { Type } from "typebox";
import { Compile } from "typebox/compile";
import { HttpError, notFound } from "../../common/errors.ts";
import { sendBytes } from "../../common/gzip.ts";
import type { App } from "../../common/http.ts";
import { type BulkEntry, batchProgress, progressBytes, submitBatch } from "../services/batches.ts";
import type { IntelServices } from "../services/index.ts";
import { checkedMarking } from "../services/requests.ts";
import { ErrorBody } from "./schemas.ts";
import { MarkingFields, parseSubject, SubjectFields } from "./subject.ts";

const tags = ["intel"];

type Deps = Pick<IntelServices, "store" | "requests"> & {
  config: Pick<IntelServices["config"], "bulkMax" | "bulkMaxBodyBytes" | "batchResultsPageMax">;
};

const BulkItemSchema = Type.Object({ ...SubjectFields, ...MarkingFields }, { additionalProperties: false });
const BulkItem = Compile(BulkItemSchema);

const BulkBody = Type.Object(
  {
    subjects: Type.Array(Type.Unknown(), {
      minItems: 1,
      description:
        "Subjects `{super_type, type, value, tlp?, pap?}`, each checked like a single ask (a subject's own `tlp`/`pap` win over the batch's); at most INTEL_BULK_MAX (413 beyond).",
    }),
    force: Type.Optional(Type.Boolean({ default: false, description: "Refresh every subject." })),
    depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, default: 1 })),
    ...MarkingFields,
  },
  { additionalProperties: false },
);

const Rejection = Type.Object({ index: Type.Integer(), detail: Type.String(), code: Type.String() });

const BatchCreated = Type.Object({
  id: Type.String({ description: "The batch id: GET /api/batches/<id>/" }),
  total: Type.Integer({ description: "Subjects sent" }),
  requests: Type.Array(Type.Object({ index: Type.Integer(), id: Type.String(), status: Type.String() }), {
    description: "One request per accepted subject, by its index in `subjects`",
  }),
  rejected: Type.Array(Rejection),
  finished: Type.Boolean({ description: "Every accepted subject was answered from storage" }),
});

const BatchItem = Type.Object(
  {
    index: Type.Integer(),
    id: Type.String({ description: "The request answering this subject" }),
    super_type: Type.String(),
    type: Type.String(),
    value: Type.String({ description: "The normalised value" }),
    status: Type.String(),
    result: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "With ?results=1, when SUCCEEDED" }),
    ),
    errors: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "With ?results=1, when FAILED" }),
    ),
  },
  { additionalProperties: false },
);

const BatchProgress = Type.Object({
  id: Type.String(),
  created_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  total: Type.Integer(),
  accepted: Type.Integer(),
  counts: Type.Record(Type.String(), Type.Integer(), { description: "Accepted subjects per request status" }),
  rejected: Type.Array(Rejection),
  items: Type.Array(BatchItem),
  next_offset: Type.Union([Type.Integer(), Type.Null()], { description: "The next page's offset, if any" }),
});

/** What is wrong with a subject's shape: the field and why (an unknown field named as such). */
function shapeProblem(item: unknown): string {
  const errors = [...BulkItem.Errors(item)];
  const unknown = errors.find((e) => e.keyword === "additionalProperties");
  const extra = (unknown?.params as { additionalProperties?: string[] } | undefined)?.additionalProperties;
  if (extra?.length) return `unknown field ${extra.map((f) => `"${f}"`).join(", ")}`;
  const first = errors[0];
  const where = first?.instancePath.replace(/^\//, "") || "subject";
  return `${where} ${first?.message ?? "is not valid"}`;
}

/** Each subject checked alone: its shape (as a single ask's body), then its type, value and marks. */
export function checkBulkSubjects(subjects: unknown[]): BulkEntry[] {
  return subjects.map((item, index) => {
    if (!BulkItem.Check(item)) {
      const detail = `${shapeProblem(item)} (expected {super_type, type, value, tlp?, pap?})`;
      return { index, error: { detail, code: "invalid_request" } };
    }
    try {
      const tlp = checkedMarking("tlp", item.tlp);
      const pap = checkedMarking("pap", item.pap);
      return { index, subject: parseSubject(item), tlp, pap };
    } catch (err) {
      if (err instanceof HttpError) return { index, error: { detail: err.message, code: err.code } };
      throw err;
    }
  });
}

export function registerBatches(app: App, deps: Deps): void {
  registerBulkAsk(app, deps);
  registerBatchProgress(app, deps);
}

function registerBulkAsk(app: App, deps: Deps): void {
  const { bulkMax, bulkMaxBodyBytes } = deps.config;
  app.post(
    "/api/requests/",
    {
      bodyLimit: bulkMaxBodyBytes,
      schema: {
        tags,
        operationId: "ask_about_subjects",
        summary:
          "Ask about many subjects at once: 202 with a batch id and one request per valid subject; 400 when none is valid",
        body: BulkBody,
        response: { 202: BatchCreated, 400: ErrorBody, 401: ErrorBody, 413: ErrorBody },
      },
    },
    async (req, reply) => {
      const { subjects } = req.body;
      if (subjects.length > bulkMax) {
        throw new HttpError(
          413,
          "too_many_subjects",
          `At most ${bulkMax} subjects in one bulk ask (got ${subjects.length}).`,
        );
      }
      const tlp = checkedMarking("tlp", req.body.tlp);
      const pap = checkedMarking("pap", req.body.pap);
      const created = await submitBatch(deps, checkBulkSubjects(subjects), {
        tlp,
        pap,
        force: req.body.force ?? false,
        depth: req.body.depth ?? 1,
        tokenHash: req.apiKeyHash ?? "",
      });
      return reply.code(202).header("location", `/api/batches/${created.id}/`).send(created);
    },
  );
}

function registerBatchProgress(app: App, deps: Deps): void {
  app.get(
    "/api/batches/:id/",
    {
      schema: {
        tags,
        operationId: "get_batch",
        summary:
          "A bulk ask's progress (counts per status) and a page of its items, with their results on ?results=1",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({
          offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
          limit: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000,
              default: 100,
              description: "Items per page (at most INTEL_BATCH_RESULTS_PAGE_MAX with results=1)",
            }),
          ),
          results: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 1,
              default: 0,
              description: "1: add each finished item's result",
            }),
          ),
        }),
        response: { 200: BatchProgress, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const results = req.query.results === 1;
      const asked = req.query.limit ?? 100;
      const limit = results ? Math.min(asked, deps.config.batchResultsPageMax) : asked;
      const progress = await batchProgress(deps, req.params.id, {
        offset: req.query.offset ?? 0,
        limit,
        results,
      });
      if (!progress) throw notFound(`No batch ${req.params.id}.`);
      // Bytes, not an object: the result documents arrive rendered and are not serialised again.
      return sendBytes(req, reply.type("application/json; charset=utf-8"), progressBytes(progress));
    },
  );
}
