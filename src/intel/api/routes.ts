/** The intel HTTP API: validation and serialisation only; the rules are in services/ (docs/architecture.md). */
import { execFileSync } from "node:child_process";
import { Type } from "typebox";
import { sendBytes } from "../../common/gzip.ts";
import type { App } from "../../common/http.ts";
import { SUPER_TYPES } from "../model/taxonomy.ts";
import { EXPORT_FORMATS, exportFormatsDescribed, exportRequest } from "../services/exports.ts";
import type { IntelServices } from "../services/index.ts";
import { askAbout, requestStatus, requestSummary } from "../services/requests.ts";
import { moduleStatuses, serviceStatus } from "../services/status.ts";
import { lookableTypes, taxonomyJson, typesJson } from "../services/types.ts";
import { watchRequest } from "../services/webhooks.ts";
import { registerBatches } from "./batches.ts";
import { ErrorBody } from "./schemas.ts";
import { MarkingFields, parseSubject, SubjectFields } from "./subject.ts";
import { registerWebhooks } from "./webhooks.ts";

export type ApiDeps = Pick<
  IntelServices,
  "store" | "requests" | "queue" | "connectors" | "config" | "renderer" | "now"
>;

const TypeRefSchema = Type.Object({
  name: Type.String(),
  short_name: Type.String(),
  description: Type.String(),
  nf_icon: Type.String(),
});

const RequestBody = Type.Object(
  {
    ...SubjectFields,
    force: Type.Optional(
      Type.Union(
        [
          Type.Boolean(),
          Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
            minItems: 1,
            maxItems: 64,
            uniqueItems: true,
          }),
        ],
        {
          default: false,
          description:
            "true: ask every vendor again; a list of vendor ids (GET /api/modules/): ask only those again; false: answer from storage while each vendor's data is within its TTL.",
        },
      ),
    ),
    depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, default: 1 })),
    ...MarkingFields,
  },
  { additionalProperties: false },
);

/** One vendor's part of a result (`sources.<vendor>`). */
const SourceSchema = Type.Object(
  {
    status: Type.Union(
      [Type.Literal("ok"), Type.Literal("not_found"), Type.Literal("error"), Type.Literal("skipped")],
      { description: "skipped: the subject's TLP/PAP forbids sending it to this vendor (see `reason`)" },
    ),
    error: Type.Union([Type.String(), Type.Null()]),
    fetched_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description: "When the vendor answered (null when it was never asked)",
    }),
    age_seconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Seconds since fetched_at, when this answer was made",
    }),
    from_cache: Type.Boolean({
      description: "True when served from storage without asking the vendor in this request",
    }),
    reason: Type.Optional(Type.Union([Type.Literal("tlp"), Type.Literal("pap")])),
  },
  { additionalProperties: true },
);

/** Why no vendor was asked (`nobody_asked`), or null. */
const NobodyAskedSchema = Type.Union(
  [
    Type.Null(),
    Type.Object({
      reason: Type.Union(
        [Type.Literal("type_not_supported"), Type.Literal("no_vendor_configured"), Type.Literal("markings")],
        {
          description:
            "type_not_supported: no enabled connector looks this type up; no_vendor_configured: none that does has credentials; markings: the subject's TLP/PAP keeps it from every configured vendor",
        },
      ),
      detail: Type.String(),
    }),
  ],
  {
    description:
      "Null when some vendor's word (an answer, not found, an error) is among `sources`; otherwise why nobody was asked: an empty result then does not mean nothing is known",
  },
);

const tags = ["intel"];

let gitCommit: string | undefined;
function gitCommitHash(): string {
  if (gitCommit === undefined) {
    try {
      gitCommit = execFileSync("git", ["rev-parse", "HEAD"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch {
      gitCommit = "unknown";
    }
  }
  return gitCommit;
}

export function registerApi(app: App, deps: ApiDeps): void {
  registerAsk(app, deps);
  registerRequestStatus(app, deps);
  registerBatches(app, deps);
  registerWebhooks(app, deps);
  registerTypes(app, deps);
  registerStatus(app, deps);
}

/** `POST /api/request/`: the protocol (200 stored, 201 under way, 502 every vendor failed). */
function registerAsk(app: App, deps: ApiDeps): void {
  app.post(
    "/api/request/",
    {
      schema: {
        tags,
        operationId: "ask_about_subject",
        summary:
          "Ask about a subject: 200 with stored data, 201 while a lookup runs, 502 when every vendor failed",
        body: RequestBody,
        response: {
          200: Type.Object(
            {
              root_entity: Type.Object({}, { additionalProperties: true }),
              entities: Type.Array(Type.Object({}, { additionalProperties: true })),
              events: Type.Array(Type.Object({}, { additionalProperties: true }), {
                description: "The root entity's events (Threatr's contract)",
              }),
              neighbour_events: Type.Array(Type.Object({}, { additionalProperties: true }), {
                description: "Events about the other entities of the result",
              }),
              relations: Type.Array(Type.Object({}, { additionalProperties: true })),
              graph: Type.String({ description: "Mermaid flowchart LR" }),
              nobody_asked: NobodyAskedSchema,
              sources: Type.Record(Type.String(), SourceSchema, {
                description:
                  "Each vendor's part: its outcome, when it was fetched, and whether this answer asked it",
              }),
            },
            { additionalProperties: true },
          ),
          201: Type.Object({
            id: Type.String(),
            value: Type.String(),
            super_type: TypeRefSchema,
            type: TypeRefSchema,
            status: Type.String(),
            created_at: Type.String(),
          }),
          400: ErrorBody,
          401: ErrorBody,
          502: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const answer = await askAbout(deps, parseSubject(req.body), {
        force: req.body.force ?? false,
        depth: req.body.depth ?? 1,
        tlp: req.body.tlp,
        pap: req.body.pap,
        view: req.readView,
      });
      if (answer.status === 200) {
        // Already-serialised JSON bytes, the same Buffer for every asker until the answer changes.
        return sendBytes(req, reply.code(200).type("application/json; charset=utf-8"), answer.json);
      }
      // The key's webhook (if any) is called when this request finishes.
      await watchRequest(deps, req.apiKeyHash ?? "", answer.request.id);
      return reply
        .code(201)
        .header("location", answer.location)
        .header("retry-after", String(answer.retryAfterSeconds))
        .send(requestSummary(answer.request));
    },
  );
}

const ExportQuery = Type.Object({
  format: Type.Optional(
    Type.Enum([...EXPORT_FORMATS], {
      description: `Answer with the request's result in this format instead of its status: ${exportFormatsDescribed()}. 409 until the request has SUCCEEDED.`,
    }),
  ),
  depth: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 3,
      default: 1,
      description: "With `format`: how far from the subject the export reaches",
    }),
  ),
});

/** `GET /api/request/<id>/`: one request's status and per-vendor outcome, or its result exported. */
function registerRequestStatus(app: App, deps: ApiDeps): void {
  app.get(
    "/api/request/:id/",
    {
      schema: {
        tags,
        operationId: "get_request",
        summary:
          "A request's status, the vendors it asks (`asked`), whether it is a background refresh, per-vendor outcome, and `nobody_asked` (why, when it asks nobody); with `format`, its result exported (STIX, MISP, Colander)",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        querystring: ExportQuery,
      },
    },
    async (req, reply) => {
      const { format, depth } = req.query;
      if (format) {
        const exported = await exportRequest(deps, req.params.id, format, depth ?? 1);
        return sendBytes(req, reply.type(exported.contentType), exported.bytes);
      }
      return requestStatus(deps, req.params.id);
    },
  );
}

/** The taxonomy in Threatr's shapes, and the types the enabled connectors can look up. */
function registerTypes(app: App, deps: ApiDeps): void {
  const { connectors } = deps;
  app.get(
    "/api/types/",
    {
      schema: {
        tags,
        operationId: "list_types",
        summary: "Every super type of the taxonomy with its sub_types (Threatr's shape)",
      },
    },
    async () => taxonomyJson(),
  );
  // Colander's get_threatr_types asks for /api/types without the slash.
  app.get("/api/types", { schema: { hide: true } }, async () => taxonomyJson());

  app.get(
    "/api/types/all/",
    {
      schema: {
        tags,
        operationId: "list_all_types",
        summary:
          "Every type of the taxonomy in the shape of /api/types/supported/ (what /api/types/ answered before)",
      },
    },
    async () => typesJson(SUPER_TYPES),
  );

  app.get(
    "/api/types/supported/",
    {
      schema: {
        tags,
        operationId: "list_supported_types",
        summary: "The types at least one connector can look up",
      },
    },
    async () => typesJson(lookableTypes(connectors)),
  );
}

/** Connectors and the service's state, in the shapes Colander's status page reads. */
function registerStatus(app: App, deps: ApiDeps): void {
  app.get(
    "/api/modules/",
    {
      schema: {
        tags,
        operationId: "list_modules",
        summary:
          "Every connector; `configured` counts its credential sets (Threatr's AvailableModule), `quota` its limits and calls left",
      },
    },
    async () => moduleStatuses(deps),
  );

  app.get(
    "/api/status/now/",
    { schema: { tags, operationId: "get_status", summary: "Cache sizes, modules, workers, queue" } },
    async () => ({
      ...(await serviceStatus(deps)),
      git_commit_hash: gitCommitHash(),
    }),
  );
}
