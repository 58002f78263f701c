/**
 * The intel service: token-protected API, OpenAPI at /api/schema/ and docs at /api/docs/ (any
 * valid key), and — unless told otherwise — an embedded worker processing requests.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Counter } from "prom-client";
import type { CommonConfig } from "../common/config.ts";
import { HttpError } from "../common/errors.ts";
import { type App, createHttpServer, limitPerMinute } from "../common/http.ts";
import type { Logger } from "../common/logger.ts";
import { VERSION } from "../common/version.ts";
import { adminDeps, loadSession, registerAdmin } from "./admin/index.ts";
import { registerAnalyses } from "./api/analyses.ts";
import { tokenAuth } from "./api/auth.ts";
import { INTEL_CONTRACT } from "./api/contract.ts";
import { registerApi } from "./api/routes.ts";
import { createAnalyses } from "./services/analyses.ts";
import { type IntelServices, isDatabaseUnavailable } from "./services/index.ts";

// Opening the services lives in services/; re-exported for the code that starts a service.
export { enabledConnectors, type IntelServices, openIntelServices, startWorker } from "./services/index.ts";

export async function buildIntelServer(opts: {
  common: CommonConfig;
  services: IntelServices;
  logger: Logger;
}): Promise<App> {
  const { services } = opts;
  const auth = tokenAuth(services);
  const admin = adminDeps(services);
  // Files analyses run in the API process that received the file (services/analysis-runner.ts);
  // the API's routes and (through this one instance) the panel's pages are their doors.
  const analyses = createAnalyses(services, opts.common.dataDir, opts.logger);
  // A person signed in to the admin panel may browse the API docs without pasting a key.
  const docsAuth = async (req: FastifyRequest, reply: FastifyReply) => {
    await loadSession(req, admin);
    if (!req.adminSession) await auth(req, reply);
  };
  const app = await createHttpServer({
    name: "intel",
    version: VERSION,
    description:
      "Threat intelligence aggregation: ask about a subject, Loupe asks vendors in parallel and answers with a knowledge graph. Every /api/ route needs `Authorization: Token <API key>`.",
    logger: opts.logger,
    specPath: "/api/schema/",
    docsPath: "/api/docs",
    rateLimitPerMinute: opts.common.rateLimitPerMinute,
    timeouts: opts.common.timeouts,
    metricsToken: opts.common.metricsToken,
    privatePrefix: `/${services.adminPath}`,
    alwaysHsts: services.config.baseUrl.startsWith("https:"),
    protectDocs: docsAuth,
    cookieSecret: services.secretKey,
    mapError: (err) =>
      isDatabaseUnavailable(err)
        ? new HttpError(
            503,
            "database_unavailable",
            "The database is unavailable for a moment; retry shortly.",
          )
        : undefined,
    contract: INTEL_CONTRACT,
    openapiComponents: {
      securitySchemes: {
        tokenAuth: { type: "apiKey", in: "header", name: "Authorization", description: "Token <API key>" },
      },
    },
  });
  app.addHook("onClose", () => analyses.close());
  // The panel's Analyse, report and History pages are a door to the same analyses.
  await registerAdmin(app, { ...admin, analyses });
  await app.register(async (api) => {
    api.addHook("onRequest", auth);
    const perKey = services.config.keyRateLimitPerMinute;
    if (perKey > 0) await limitPerMinute(api as unknown as App, perKey, (req) => req.apiKeyHash ?? req.ip);
    registerApi(api as unknown as App, {
      store: services.store,
      requests: services.requests,
      queue: services.queue,
      connectors: services.connectors,
      config: services.config,
      renderer: services.renderer,
      now: services.now,
    });
    await registerAnalyses(api as unknown as App, {
      analyses,
      limits: {
        maxFileBytes: services.config.analysisMaxBytes,
        maxFieldBytes: services.config.analysisMaxFieldBytes,
      },
    });
  });
  countReadCache(app, services.reads);
  app.get("/", { schema: { hide: true } }, async () => ({
    status: "ok",
    service: "intel",
    version: VERSION,
  }));
  return app;
}

/** `intel_read_cache_reads_total{result="hit"|"miss"}`: how often memory answered (see read-cache.ts). */
function countReadCache(app: App, reads: IntelServices["reads"]): void {
  new Counter({
    name: "intel_read_cache_reads_total",
    help: "Reads of the answer path served from memory (hit) or from the database (miss).",
    labelNames: ["result"],
    registers: [app.metricsRegistry],
    collect() {
      const { hits, misses } = reads.counts();
      this.reset();
      this.inc({ result: "hit" }, hits);
      this.inc({ result: "miss" }, misses);
    },
  });
}
