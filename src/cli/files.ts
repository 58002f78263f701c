/**
 * `./loupe files serve`: runs the files service alone, in the foreground. `--port` is passed as
 * FILES_PORT, so the port is read and checked like every other setting.
 */
import { parseArgs } from "node:util";
import { readCommonConfig } from "../common/config.ts";
import { closeOnSignals } from "../common/http.ts";
import { createLogger } from "../common/logger.ts";
import { readFilesConfig } from "../files/config.ts";
import { startFilesService } from "./services.ts";
import { UsageError } from "./usage.ts";

export async function files(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  if (sub !== "serve") throw new UsageError("usage: ./loupe files serve [--port N]");
  const { values } = parseArgs({ args: rest, options: { port: { type: "string" } } });
  const env = values.port ? { ...process.env, FILES_PORT: values.port } : process.env;
  const common = readCommonConfig(env);
  const logger = createLogger(common.logLevel, "files");
  const service = await startFilesService(common, readFilesConfig(env), logger);
  logger.info(`files listening on ${service.url} (docs: ${service.url}/docs)`);
  closeOnSignals(logger, [service.close]);
  return undefined;
}
