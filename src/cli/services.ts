/** Starting the services: shared by `up` and the per-service `serve` commands. */
import type { CommonConfig } from "../common/config.ts";
import type { Logger } from "../common/logger.ts";
import type { FilesConfig } from "../files/config.ts";
import { buildFilesServer } from "../files/server.ts";

export interface RunningService {
  url: string;
  close: () => Promise<unknown>;
}

export async function startFilesService(
  common: CommonConfig,
  config: FilesConfig,
  logger: Logger,
): Promise<RunningService> {
  const app = await buildFilesServer({ common, files: config, logger });
  await app.listen({ host: common.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  return { url: `http://${urlHost(common.host)}:${port}`, close: () => app.close() };
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
