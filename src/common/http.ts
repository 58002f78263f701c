/**
 * The Fastify bootstrap shared by both services: request ids, the {detail, code} error model,
 * security headers, optional rate limiting, Prometheus metrics at /metrics, the OpenAPI 3.1
 * document and its interactive docs (assets served locally), and graceful shutdown.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import cookie from "@fastify/cookie";
import rateLimit from "@fastify/rate-limit";
import swagger, { type SwaggerTransformObject } from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type onRequestHookHandler,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from "fastify";
import { collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { Type } from "typebox";
import { AllowedMethods } from "./allowed-methods.ts";
import type { HttpTimeouts } from "./config.ts";
import { type ErrorBody, HttpError } from "./errors.ts";
import type { Logger } from "./logger.ts";
import { type ContractPolicy, completeContract } from "./openapi-contract.ts";
import { securityHeaders } from "./security-headers.ts";

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
  /** Slow-client bounds; Node's defaults (no body-idle bound) when absent. */
  timeouts?: HttpTimeouts;
  /** When set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /**
   * A secret path prefix (intel's admin panel): its routes are left out of the OpenAPI document,
   * counted in metrics and written in request logs under `/{private}`, so the path appears nowhere
   * a client or a log reader can read.
   */
  privatePrefix?: string;
  /** Send HSTS on every answer (the service is reached over https: INTEL_BASE_URL); else only on https requests. */
  alwaysHsts?: boolean;
  bodyLimit?: number;
  /** Extra OpenAPI components (security schemes…). */
  openapiComponents?: Record<string, unknown>;
  /** The statuses, codes, security and constraints the document states beyond each route's schema. */
  contract?: ContractPolicy;
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

/** A route's 200 that is a PNG (a thumbnail), as both services document it. */
export const PNG_RESPONSE = Type.Any({
  description: "The thumbnail",
  content: { "image/png": { schema: { type: "string", format: "binary" } } },
});

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export async function createHttpServer(opts: HttpServerOptions): Promise<App> {
  const app = Fastify({
    loggerInstance: (opts.privatePrefix
      ? hidingPrivateUrls(opts.logger, opts.privatePrefix)
      : opts.logger) as FastifyBaseLogger,
    bodyLimit: opts.bodyLimit ?? 1_048_576,
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: "array", removeAdditional: false } },
    logController: new OneLinePerRequest(),
    ...serverTimeouts(opts.timeouts),
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (opts.timeouts) guardBodyIdle(app, opts.timeouts.bodyIdleMs);

  const routes: Array<{ method: string; url: string }> = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  app.decorate("routeList", routes);
  app.addHook("onSend", async (req, reply) => {
    reply.header("x-request-id", req.id);
  });
  installErrorHandlers(app, opts.mapError, new AllowedMethods(routes));
  const headers = securityHeaders({
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
    // HSTS over plain HTTP means nothing and is wrong (RFC 6797 §7.2): added below only over https.
    strictTransportSecurity: false,
  });
  app.addHook("onRequest", (_req, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  });
  installHsts(app, opts.alwaysHsts ?? false);
  if (opts.rateLimitPerMinute > 0) await limitPerMinute(app, opts.rateLimitPerMinute);
  if (opts.cookieSecret) await app.register(cookie, { secret: opts.cookieSecret });
  installMetrics(app, opts);
  await installOpenApi(app, opts);
  return app;
}

/**
 * Node's own bounds: the whole request within requestMs (checked every second, so the bound is
 * that plus a second), headers within headersMs, idle keep-alive sockets closed after keepAliveMs.
 * No socket-wide idle timeout: an analysis may work a minute before its answer's first byte.
 */
function serverTimeouts(t: HttpTimeouts | undefined) {
  if (!t) return {};
  return {
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    http: { headersTimeout: t.headersMs, connectionsCheckingInterval: 1_000 },
  };
}

/**
 * While a request body is arriving, a silence longer than idleMs closes the connection (a client
 * trickling a byte every few seconds). Node emits the socket's timeout on the request only while
 * it is incomplete; once the body is in, the reply's listener keeps a long analysis from being cut.
 */
function guardBodyIdle(app: App, idleMs: number): void {
  app.addHook("onRequest", async (req, reply) => {
    const raw = req.raw;
    const length = raw.headers["content-length"];
    const hasBody =
      raw.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
    if (raw.complete || !hasBody) return;
    raw.socket.setTimeout(idleMs);
    raw.on("timeout", () => {
      req.log.warn({ idleMs }, "request body idle too long: closing the connection");
      raw.socket.destroy();
    });
    reply.raw.on("timeout", () => undefined);
  });
}

/**
 * At most `max` requests per minute per key (the client's address unless `keyOf` says otherwise)
 * on the routes of `scope` registered after this call; past it 429 `rate_limited` with Retry-After.
 */
export async function limitPerMinute(
  scope: App,
  max: number,
  keyOf?: (req: FastifyRequest) => string,
): Promise<void> {
  await scope.register(rateLimit, {
    max,
    timeWindow: 60_000,
    ...(keyOf ? { keyGenerator: keyOf } : {}),
    // Thrown by the plugin, so it goes through our error handler like every other error.
    errorResponseBuilder: (_req, ctx) =>
      new HttpError(
        429,
        "rate_limited",
        `Too many requests: at most ${ctx.max} per minute. Retry in ${Math.ceil(ctx.ttl / 1000)} s.`,
      ),
  });
}

function installErrorHandlers(
  app: App,
  mapError: HttpServerOptions["mapError"],
  allowed: AllowedMethods,
): void {
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
    const methods = allowed.of(req.url);
    if (methods.length > 0) {
      const detail = `${req.method} is not served at this path; it answers ${methods.join(", ")}.`;
      reply.code(405).header("allow", methods.join(", "));
      return reply.send({ detail, code: "method_not_allowed" } satisfies ErrorBody);
    }
    return reply
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
    const params = v.params as {
      allowedValues?: unknown[];
      allowedValue?: unknown;
      additionalProperty?: string;
    };
    if (v.keyword === "additionalProperties" && params.additionalProperty)
      return `unknown field "${[field === where ? "" : `${field}.`, params.additionalProperty].join("")}"`;
    if (v.keyword === "enum" && params.allowedValues)
      return `${field} must be one of: ${params.allowedValues.join(", ")}`;
    return `${field} ${v.message ?? "is invalid"}`;
  });
  return `Invalid ${where}: ${parts.join("; ") || err.message}.`;
}

function installHsts(app: App, always: boolean): void {
  app.addHook("onSend", async (req, reply) => {
    if (always || req.protocol === "https")
      reply.header("strict-transport-security", "max-age=31536000; includeSubDomains");
  });
}

/** The metrics label of a route: its pattern, with a secret prefix replaced by `/{private}`. */
function routeLabel(url: string | undefined, privatePrefix: string | undefined): string {
  if (!url) return "unmatched";
  return privatePrefix ? withoutPrivatePrefix(url, privatePrefix) : url;
}

/** A URL or route with the secret prefix replaced by `/{private}` (its query string too). */
function withoutPrivatePrefix(url: string, privatePrefix: string): string {
  const path = url.split("?", 1)[0] ?? "";
  if (path === privatePrefix || path.startsWith(`${privatePrefix}/`))
    return `/{private}${url.slice(privatePrefix.length)}`;
  return url;
}

/**
 * One log line per answered request: the request (method, URL, client), the status and the time
 * taken, with the error when there was one. Fastify's own two lines (one on arrival, one on the
 * answer) cost a cached intel answer ≈ 10 % of its CPU (docs/benchmarks.md); the arrival is the
 * line's time less its responseTime.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.info(line, "request completed");
  }
}

/**
 * The service's logger, whose `req` lines write the URL without the secret prefix (Fastify's other
 * fields kept). Made once: each request's logger inherits the serializer (a serializer given per
 * request made every request, the trivial route's too, build a pino child with its own set).
 */
function hidingPrivateUrls(logger: Logger, privatePrefix: string): Logger {
  const req = (r: FastifyRequest) => ({
    method: r.method,
    url: withoutPrivatePrefix(r.url, privatePrefix),
    host: r.host,
    remoteAddress: r.ip,
    remotePort: r.socket?.remotePort,
  });
  return logger.child({}, { serializers: { req } });
}

function installMetrics(app: App, opts: HttpServerOptions): void {
  const registry = new Registry();
  registry.setDefaultLabels({ service: opts.name });
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
      {
        method: req.method,
        route: routeLabel(req.routeOptions.url, opts.privatePrefix),
        status_code: reply.statusCode,
      },
      reply.elapsedTime / 1000,
    );
  });
  app.decorate("metricsRegistry", registry);
  const expected = opts.metricsToken ? `Bearer ${opts.metricsToken}` : undefined;
  app.get("/metrics", { schema: { hide: true } }, async (req, reply) => {
    if (expected && !sameSecret(req.headers.authorization ?? "", expected))
      throw new HttpError(
        401,
        "not_authenticated",
        "/metrics needs Authorization: Bearer <LOUPE_METRICS_TOKEN>.",
      );
    reply.type(registry.contentType);
    return registry.metrics();
  });
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function installOpenApi(app: App, opts: HttpServerOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: `Loupe ${opts.name}`, version: opts.version, description: opts.description },
      components: opts.openapiComponents ?? {},
    },
    ...(opts.contract ? { transformObject: contractOf(opts.contract) } : {}),
    // A shared schema's $id names its component: generated clients name their models after it.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url }) => {
      const s = schema as Record<string, unknown> | undefined;
      if (routeLabel(url, opts.privatePrefix) !== url)
        return { schema: { ...s, hide: true } as typeof schema, url };
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

function contractOf(policy: ContractPolicy): SwaggerTransformObject {
  return (document) =>
    "openapiObject" in document ? completeContract(document.openapiObject, policy) : document.swaggerObject;
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
