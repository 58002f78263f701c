/**
 * A key's own webhook: `PUT /api/webhook/` sets it (the secret is in that answer only),
 * `GET` shows it, `DELETE` removes it, `GET /api/webhook/deliveries/` is its delivery log.
 */
import { Type } from "typebox";
import { notFound } from "../../common/errors.ts";
import type { App } from "../../common/http.ts";
import type { IntelServices } from "../services/index.ts";
import { deliveries, ownWebhook, removeWebhook, setWebhook } from "../services/webhooks.ts";
import { ErrorBody } from "./schemas.ts";

const tags = ["webhooks"];

type Deps = Pick<IntelServices, "store" | "config">;

const Webhook = Type.Object({ id: Type.String(), url: Type.String(), created_at: Type.String() });

const Delivery = Type.Object({
  id: Type.String({ description: "Sent as X-Loupe-Delivery" }),
  event: Type.String({ description: "request.finished or batch.finished" }),
  target_id: Type.String({ description: "The request's or the batch's id" }),
  status: Type.String({ description: "pending, delivered or failed (attempts exhausted)" }),
  attempts: Type.Integer(),
  next_attempt_at: Type.String(),
  last_status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's last HTTP status" }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
});

export function registerWebhooks(app: App, deps: Deps): void {
  const key = (req: { apiKeyHash?: string }) => req.apiKeyHash ?? "";
  app.put(
    "/api/webhook/",
    {
      schema: {
        tags,
        operationId: "set_webhook",
        summary:
          "Set this API key's webhook (replacing any): called when a request it asked about or a batch it sent finishes. The secret is shown once.",
        body: Type.Object(
          { url: Type.String({ minLength: 1, maxLength: 2048 }) },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            ...Webhook.properties,
            secret: Type.String({ description: "Signs every call (X-Loupe-Signature); shown only here" }),
          }),
          400: ErrorBody,
          401: ErrorBody,
        },
      },
    },
    async (req, reply) => reply.code(201).send(await setWebhook(deps, key(req), req.body.url)),
  );
  app.get(
    "/api/webhook/",
    {
      schema: {
        tags,
        operationId: "get_webhook",
        summary: "This API key's webhook (without its secret)",
        response: { 200: Webhook, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => (await ownWebhook(deps, key(req))) ?? Promise.reject(notFound("This key has no webhook.")),
  );
  app.delete(
    "/api/webhook/",
    { schema: { tags, operationId: "delete_webhook", summary: "Remove this API key's webhook" } },
    async (req, reply) => {
      if (!(await removeWebhook(deps, key(req)))) throw notFound("This key has no webhook.");
      return reply.code(204).send();
    },
  );
  app.get(
    "/api/webhook/deliveries/",
    {
      schema: {
        tags,
        operationId: "list_webhook_deliveries",
        summary: "The delivery log of this API key's webhook, newest first",
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
        }),
        response: { 200: Type.Object({ deliveries: Type.Array(Delivery) }), 401: ErrorBody },
      },
    },
    async (req) => ({ deliveries: await deliveries(deps, key(req), req.query.limit ?? 100) }),
  );
}
