/**
 * The intel service: token-protected API, OpenAPI at /api/schema/ and docs at /api/docs/ (any
 * valid key), and — unless told otherwise — an embedded worker processing lookups.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CommonConfig } from "../common/config.ts";
import { HttpError } from "../common/errors.ts";
import { type App, createHttpServer, limitPerMinute } from "../common/http.ts";
import type { Logger } from "../common/logger.ts";
import { ConfigError } from "../common/settings.ts";
import { VERSION } from "../common/version.ts";
import { adminDeps, loadSession, registerAdmin } from "./admin/index.ts";
import { tokenAuth } from "./api/auth.ts";
import { registerApi } from "./api/routes.ts";
import type { IntelConfig } from "./config.ts";
import { CONNECTORS } from "./connectors/registry.ts";
import type { Connector } from "./connectors/types.ts";
import { createLookups, type Lookups } from "./domain/requests.ts";
import { createJobQueue, type JobQueue } from "./queue/jobs.ts";
import { isDatabaseUnavailable, openStore, type Store } from "./store/db.ts";
import { scheduleRetention } from "./store/retention.ts";
import { getOrCreateSetting, randomHex } from "./store/settings.ts";

export interface IntelServices {
  store: Store;
  queue: JobQueue;
  lookups: Lookups;
  connectors: Connector[];
  config: IntelConfig;
  /** The admin panel's path (ADMIN_PATH, or a random one made once and kept). */
  adminPath: string;
  /** Signs the admin panel's cookies (SECRET_KEY, or a random one made once and kept). */
  secretKey: string;
  /** Stops background work started for these services (the retention schedule) on close. */
  onClose: Array<() => void>;
  close(): Promise<void>;
}

/** The connectors INTEL_CONNECTORS enables ("all", or a list of ids); an unknown id is a configuration error. */
export function enabledConnectors(setting: string, available: Connector[] = CONNECTORS): Connector[] {
  if (setting.trim().toLowerCase() === "all") return available;
  const ids = setting
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = ids.filter((id) => !available.some((c) => c.id === id));
  if (unknown.length > 0) {
    const known = available.map((c) => c.id).join(", ");
    throw new ConfigError([
      `INTEL_CONNECTORS names unknown connectors: ${unknown.join(", ")} (known: ${known})`,
    ]);
  }
  return available.filter((c) => ids.includes(c.id));
}

export async function openIntelServices(
  config: IntelConfig,
  connectors: Connector[] = enabledConnectors(config.connectors),
): Promise<IntelServices> {
  const store = await openStore(config.databaseUrl, { waitMs: config.databaseWaitMs });
  const queue = createJobQueue(store.db, {
    leaseMs: config.jobLeaseMs,
    concurrency: config.workerConcurrency,
  });
  const lookups = createLookups({ store, queue, config, connectors });
  const adminPath =
    config.adminPath?.replace(/^\/+|\/+$/g, "") ??
    (await getOrCreateSetting(store.db, "admin_path", randomHex(16)));
  const secretKey = config.secretKey ?? (await getOrCreateSetting(store.db, "secret_key", randomHex(32)));
  const onClose: Array<() => void> = [];
  return {
    store,
    queue,
    lookups,
    connectors,
    config,
    adminPath,
    secretKey,
    onClose,
    close: async () => {
      for (const stop of onClose) stop();
      await queue.stop();
      await store.close();
    },
  };
}

/** Starts processing lookups in this process, and the retention sweep on its schedule. */
export function startWorker(services: IntelServices, logger?: Logger): void {
  services.queue.start((id) => services.lookups.processRequest(id));
  const { retentionDays, retentionSweepMinutes } = services.config;
  if (retentionDays > 0) {
    const stop = scheduleRetention(services.store.db, retentionDays, retentionSweepMinutes, logger);
    services.onClose.push(stop);
  }
}

export async function buildIntelServer(opts: {
  common: CommonConfig;
  services: IntelServices;
  logger: Logger;
}): Promise<App> {
  const { services } = opts;
  const auth = tokenAuth(services.store.db);
  const admin = adminDeps(services);
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
    openapiComponents: {
      securitySchemes: {
        tokenAuth: { type: "apiKey", in: "header", name: "Authorization", description: "Token <API key>" },
      },
    },
  });
  await registerAdmin(app, admin);
  await app.register(async (api) => {
    api.addHook("onRequest", auth);
    const perKey = services.config.keyRateLimitPerMinute;
    if (perKey > 0) await limitPerMinute(api as unknown as App, perKey, (req) => req.apiKeyHash ?? req.ip);
    registerApi(api as unknown as App, {
      store: services.store,
      lookups: services.lookups,
      queue: services.queue,
      connectors: services.connectors,
      retryAfterSeconds: services.config.retryAfterSeconds,
    });
  });
  app.get("/", { schema: { hide: true } }, async () => ({
    status: "ok",
    service: "intel",
    version: VERSION,
  }));
  return app;
}
