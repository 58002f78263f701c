/**
 * Starting the services, for the per-service commands that `./loupe up` runs as supervised
 * children: each reports itself ready (with its URLs) to a supervising parent.
 */
import path from "node:path";
import type { CommonConfig } from "../common/config.ts";
import type { Logger } from "../common/logger.ts";
import { findClamd, type ManagedClamd, startManagedClamd } from "../files/clamd/managed.ts";
import type { FilesConfig } from "../files/config.ts";
import { buildFilesServer } from "../files/server.ts";
import type { IntelConfig } from "../intel/config.ts";
import { buildIntelServer } from "../intel/server.ts";
import { type IntelServices, openIntelServices, startWorker } from "../intel/services/index.ts";
import { reportReady } from "./supervised.ts";

export interface RunningService {
  url: string;
  close: () => Promise<unknown>;
}

export async function startFilesService(
  common: CommonConfig,
  config: FilesConfig,
  logger: Logger,
): Promise<RunningService> {
  const clamd = await startClamdIfNeeded(common, config, logger);
  const app = await buildFilesServer({ common, files: config, logger, managedClamd: clamd?.address });
  await app.listen({ host: common.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${urlHost(common.host)}:${port}`;
  reportReady({ url });
  return {
    url,
    close: async () => {
      await app.close();
      await clamd?.stop();
    },
  };
}

/** Loupe runs its own clamd unless one is configured; without clamd the antivirus reports it is not ready. */
async function startClamdIfNeeded(
  common: CommonConfig,
  config: FilesConfig,
  logger: Logger,
): Promise<ManagedClamd | undefined> {
  if (config.clamdSocket || config.clamdHost) return undefined;
  if (!findClamd()) {
    logger.warn(
      "clamd is not installed (Debian package clamav-daemon): the antivirus analyzer is unavailable",
    );
    return undefined;
  }
  try {
    return await startManagedClamd(path.join(common.dataDir, "clamd"), {
      maxFileSize: config.maxFileSize,
      log: logger,
    });
  } catch (err) {
    logger.warn(`could not start clamd: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** The intel API (and its embedded worker unless `worker` is false). */
export async function startIntelService(
  common: CommonConfig,
  config: IntelConfig,
  logger: Logger,
  opts: { worker: boolean },
): Promise<RunningService & { adminUrl: string; services: IntelServices }> {
  const services = await openIntelServices(config);
  if (opts.worker) startWorker(services, logger);
  const app = await buildIntelServer({ common, services, logger });
  await app.listen({ host: common.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${urlHost(common.host)}:${port}`;
  const adminUrl = `${config.baseUrl}/${services.adminPath}/`;
  reportReady({ url, adminUrl });
  return {
    url,
    adminUrl,
    services,
    close: async () => {
      await app.close();
      await services.close();
    },
  };
}

/** A standalone intel worker: processes requests from the shared database, serves nothing. */
export async function startIntelWorker(config: IntelConfig, logger?: Logger): Promise<IntelServices> {
  const services = await openIntelServices(config);
  startWorker(services, logger);
  reportReady();
  return services;
}
