/**
 * The Fastify bootstrap shared by both services: request ids, the {detail, code} error model,
 * security headers, optional rate limiting, Prometheus metrics at /metrics, the OpenAPI 3.1
 * document and its interactive docs (assets served locally), and graceful shutdown.
 */
import { randomUUID } from "node:crypto";
import cookie from "@fastify/cookie";
import helmet from "@fastify/helmet";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type onRequestHookHandler,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from "fastify";
import { collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { type ErrorBody, HttpError } from "./errors.ts";
import type { Logger } from "./logger.ts";

export interface HttpServerOptions {
  name: string;
  version: string;
  description: string;
  logger: Logger;
  /** Where the OpenAPI JSON is served (and the docs UI reads it from). */
  specPath: string;
  docsPath: string;
  /** Requests per minute per client IP; 0 disables the limit. */
  rateLimitPerMinute: number;
  bodyLimit?: number;
  /** Extra OpenAPI components (security schemes…). */
  openapiComponents?: Record<string, unknown>;
  /** Runs before the docs/spec routes are served: lets a service protect them (intel needs a key). */
  protectDocs?: onRequestHookHandler;
  /**
   * Turns an unexpected error the service recognises into an answer (a database that is away
   * for a moment → 503) instead of a 500.
   */
  mapError?: (err: unknown) => HttpError | undefined;
  /** Parse cookies, signing with this secret (intel's admin panel); registered before any route. */
  cookieSecret?: string;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Route schema key used to document a multipart body in OpenAPI without Fastify validating it (we stream it). */
export const MULTIPART_BODY = "x-multipart-body";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export async function createHttpServer(opts: HttpServerOptions): Promise<App> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    bodyLimit: opts.bodyLimit ?? 1_048_576,
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: "array", removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const routes: Array<{ method: string; url: string }> = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  app.decorate("routeList", routes);
  app.addHook("onSend", async (req, reply) => {
    reply.header("x-request-id", req.id);
  });
  installErrorHandlers(app, opts.mapError);
  await app.register(helmet, {
    // The docs UI needs inline styles; nothing else of ours loads third-party content.
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  if (opts.rateLimitPerMinute > 0) {
    await app.register(rateLimit, {
      max: opts.rateLimitPerMinute,
      timeWindow: 60_000,
      // Thrown by the plugin, so it goes through our error handler like every other error.
      errorResponseBuilder: (_req, ctx) =>
        new HttpError(
          429,
          "rate_limited",
          `Too many requests: at most ${ctx.max} per minute. Retry in ${Math.ceil(ctx.ttl / 1000)} s.`,
        ),
    });
  }
  if (opts.cookieSecret) await app.register(cookie, { secret: opts.cookieSecret });
  installMetrics(app, opts.name);
  await installOpenApi(app, opts);
  return app;
}

function installErrorHandlers(app: App, mapError: HttpServerOptions["mapError"]): void {
  app.setErrorHandler((error: FastifyError | HttpError, req, reply) => {
    const err = (error instanceof HttpError ? undefined : mapError?.(error)) ?? error;
    if (err instanceof HttpError && err.status === 503) reply.header("retry-after", "2");
    if (err instanceof HttpError) {
      if (err.status >= 500) req.log.warn({ code: err.code }, err.message);
      return reply.code(err.status).send(err.toBody());
    }
    if (err.validation) {
      const body: ErrorBody = { detail: describeValidation(err), code: "invalid_request" };
      return reply.code(400).send(body);
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = (err.code ?? "bad_request").toLowerCase().replace(/^fst_err_/, "");
      return reply.code(status).send({ detail: err.message, code } satisfies ErrorBody);
    }
    req.log.error({ err }, "unhandled error");
    return reply
      .code(500)
      .send({ detail: "Internal server error.", code: "internal_error" } satisfies ErrorBody);
  });
  app.setNotFoundHandler((req, reply) => {
    reply
      .code(404)
      .send({ detail: `Nothing at ${req.method} ${req.url}.`, code: "not_found" } satisfies ErrorBody);
  });
}

/** "width must be <= 10000", "strategy must be one of: pad, fit, cover, contain" — names what is allowed. */
function describeValidation(err: FastifyError): string {
  const where = err.validationContext ?? "request";
  const parts = (err.validation ?? []).map((v) => {
    const field =
      v.instancePath.replace(/^\//, "").replaceAll("/", ".") || String(v.params.missingProperty ?? where);
    const params = v.params as { allowedValues?: unknown[]; allowedValue?: unknown };
    if (v.keyword === "enum" && params.allowedValues)
      return `${field} must be one of: ${params.allowedValues.join(", ")}`;
    return `${field} ${v.message ?? "is invalid"}`;
  });
  return `Invalid ${where}: ${parts.join("; ") || err.message}.`;
}

function installMetrics(app: App, service: string): void {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration by route and status",
    labelNames: ["method", "route", "status_code"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  app.addHook("onResponse", async (req, reply) => {
    duration.observe(
      { method: req.method, route: req.routeOptions.url ?? "unmatched", status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  });
  app.decorate("metricsRegistry", registry);
  app.get("/metrics", { schema: { hide: true } }, async (_req, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}

async function installOpenApi(app: App, opts: HttpServerOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: `Loupe ${opts.name}`, version: opts.version, description: opts.description },
      components: opts.openapiComponents ?? {},
    },
    // A shared schema's $id names its component: generated clients name their models after it.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url }) => {
      const s = schema as Record<string, unknown> | undefined;
      if (!s) return { schema, url };
      const { [MULTIPART_BODY]: body, ...rest } = s;
      const documented = s.querystring ? { ...rest, querystring: optionalDefaults(s.querystring) } : rest;
      if (!body) return { schema: documented as typeof schema, url };
      return { schema: { ...documented, body, consumes: ["multipart/form-data"] } as typeof schema, url };
    },
  });
  await app.register(async (scope) => {
    if (opts.protectDocs) scope.addHook("onRequest", opts.protectDocs);
    scope.get(opts.specPath, { schema: { hide: true } }, async () => app.swagger());
    await scope.register(swaggerUi, {
      routePrefix: opts.docsPath,
      staticCSP: false,
      uiConfig: { url: opts.specPath, deepLinking: true },
    } as Parameters<typeof swaggerUi>[1]);
  });
}

/**
 * A query parameter with a default may be left out (validation fills it in): documented as
 * optional, so generated clients do not make callers pass it.
 */
function optionalDefaults(querystring: unknown): unknown {
  const q = querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] };
  if (!q?.properties || !q.required) return querystring;
  const required = q.required.filter((name) => q.properties?.[name]?.default === undefined);
  return { ...q, required };
}

/** Stops the given closeables once on SIGINT/SIGTERM, letting in-flight requests finish. */
export function closeOnSignals(logger: Logger, closeables: Array<() => Promise<unknown>>): void {
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) {
      logger.warn("second signal: exiting now");
      process.exit(130);
    }
    closing = true;
    logger.info({ signal }, "shutting down");
    const results = await Promise.allSettled(closeables.map((close) => close()));
    for (const r of results)
      if (r.status === "rejected") logger.error({ err: r.reason }, "error during shutdown");
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

declare module "fastify" {
  interface FastifyInstance {
    metricsRegistry: Registry;
    /** Every route registered (method and URL): lets tests check a rule holds for all of them. */
    routeList: Array<{ method: string; url: string }>;
  }
}
