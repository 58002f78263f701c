/**
 * The intel services, opened once per process and handed to every door (API routes, admin panel,
 * CLI, worker): the store, the job queue, the requests, the enabled connectors and the settings.
 */

import type { Logger } from "../../common/logger.ts";
import { ConfigError } from "../../common/settings.ts";
import type { IntelConfig } from "../config.ts";
import { CONNECTORS, connectorById } from "../connectors/registry.ts";
import type { Connector } from "../connectors/types.ts";
import { scheduleFeeds } from "../domain/feeds.ts";
import type { Clock } from "../domain/quota.ts";
import { createRenderer, type Renderer } from "../domain/renderer.ts";
import { createRequests, type Requests } from "../domain/requests.ts";
import { SUPER_TYPES } from "../model/taxonomy.ts";
import { createJobQueue, type JobQueue } from "../queue/jobs.ts";
import { openStore, type Store } from "../store/db.ts";
import { createReadCache, type ReadCache } from "../store/read-cache.ts";

// What the doors are handed: the enabled connectors (their panel metadata included), and how to
// tell a database that is away (503) from any other failure.
export type { Connector, LocalData, VendorPage, VerdictRule } from "../connectors/types.ts";
export { isDatabaseUnavailable } from "../store/db.ts";
export type { ReadView } from "../store/read-cache.ts";

import { scheduleRetention } from "../store/retention.ts";
import { getOrCreateSetting, randomHex } from "../store/settings.ts";
import { afterRequest } from "./finished.ts";
import { startDeliveries } from "./webhooks.ts";

export interface IntelServices {
  store: Store;
  queue: JobQueue;
  requests: Requests;
  /** Renders stored results and exports off the event loop, kept per graph version. */
  renderer: Renderer;
  /** Reads served from memory while nothing is committed (API keys, stored answers). */
  reads: ReadCache;
  connectors: Connector[];
  config: IntelConfig;
  /** The admin panel's path (INTEL_ADMIN_PATH, or a random one made once and kept). */
  adminPath: string;
  /** Signs the admin panel's cookies (INTEL_SECRET_KEY, or a random one made once and kept). */
  secretKey: string;
  /** The vendor quotas' clock: Date.now, or a test's own. */
  now: Clock;
  /** Stops background work started for these services (the retention schedule) on close. */
  onClose: Array<() => void>;
  close(): Promise<void>;
}

/**
 * What a service that only reads or writes the database is handed: the doors pass their services
 * (or any part holding the store) and never hold a database handle themselves.
 */
export type WithStore = Pick<IntelServices, "store">;

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

/** The enabled connector with this id (a vendor named in a URL or on the command line), if any. */
export const enabledConnector = (
  services: Pick<IntelServices, "connectors">,
  id: string,
): Connector | undefined => connectorById(id, services.connectors);

/** Per-vendor settings (INTEL_VENDOR_TTL_<ID>) must name a known connector: a typo is a configuration error. */
export function checkVendorSettings(config: IntelConfig, available: Connector[] = CONNECTORS): void {
  const known = (id: string) => available.some((c) => c.id === id);
  const names = available.map((c) => c.id).join(", ");
  const problems = [
    ...Object.keys(config.vendorTtlSeconds)
      .filter((id) => !known(id))
      .map((id) => `INTEL_VENDOR_TTL_${id.toUpperCase()} names no connector (known: ${names})`),
    ...(["tlpAllow", "papAllow"] as const).flatMap((key) =>
      Object.keys(config[key])
        .filter((id) => !known(id))
        .map(
          (id) =>
            `${key === "tlpAllow" ? "INTEL_TLP_ALLOW" : "INTEL_PAP_ALLOW"} names no connector: ${id} (known: ${names})`,
        ),
    ),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Of a worker's slots, how many bulk lookups leave free for single asks (bulk always gets one). */
const INTERACTIVE_SLOTS = 2;

/** What a test may change that a user does not set: the quota clock. */
export interface ServiceOptions {
  now?: Clock;
}

export async function openIntelServices(
  config: IntelConfig,
  connectors: Connector[] = enabledConnectors(config.connectors),
  options: ServiceOptions = {},
): Promise<IntelServices> {
  const now = options.now ?? Date.now;
  checkVendorSettings(config);
  const store = await openStore(config.databaseUrl, { waitMs: config.databaseWaitMs, taxonomy: SUPER_TYPES });
  const queue = createJobQueue(store.db, {
    leaseMs: config.jobLeaseMs,
    concurrency: config.workerConcurrency,
    interactiveSlots: INTERACTIVE_SLOTS,
    skipLocked: store.dialect === "postgres",
  });
  const reads = createReadCache(store, config.readCacheEntries);
  const renderer = createRenderer(store, config);
  const requests = createRequests({ store, queue, config, connectors, reads, renderer, now });
  const adminPath =
    config.adminPath?.replace(/^\/+|\/+$/g, "") ??
    (await getOrCreateSetting(store.db, "admin_path", randomHex(16)));
  const secretKey = config.secretKey ?? (await getOrCreateSetting(store.db, "secret_key", randomHex(32)));
  const onClose: Array<() => void> = [];
  return {
    store,
    queue,
    requests,
    renderer,
    reads,
    connectors,
    config,
    adminPath,
    secretKey,
    now,
    onClose,
    close: async () => {
      for (const stop of onClose) stop();
      await queue.stop();
      await renderer.close();
      await store.close();
    },
  };
}

/** Starts processing requests in this process, and the retention sweep on its schedule. */
export function startWorker(services: IntelServices, logger?: Logger): void {
  services.queue.start(async (id) => {
    try {
      await services.requests.processRequest(id);
    } finally {
      // Also after a failure: the request may have ended FAILED, which finishes batches too.
      await afterRequest(services, id);
    }
  });
  services.onClose.push(
    startDeliveries(services, (err) => logger?.warn({ err }, "webhook deliveries: a pass failed")),
  );
  for (const c of services.connectors)
    c.warm?.().catch((err) =>
      logger?.warn({ err, connector: c.id }, "could not load the connector's local data"),
    );
  services.onClose.push(
    scheduleFeeds(
      services.store.db,
      services.config,
      {
        blocklists: services.connectors.some((c) => c.id === "blocklists"),
        mvt: services.connectors.some((c) => c.id === "mvt"),
      },
      (err) => logger?.warn({ err }, "local feeds: a pass failed"),
    ),
  );
  const { retentionDays, retentionSweepMinutes } = services.config;
  if (retentionDays > 0) {
    const stop = scheduleRetention(services.store.db, retentionDays, retentionSweepMinutes, logger);
    services.onClose.push(stop);
  }
}
