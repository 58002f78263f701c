import { readCommonConfig } from "../common/config.ts";
import { closeOnSignals } from "../common/http.ts";
import { createLogger } from "../common/logger.ts";
import { ensureDebianPackages } from "../common/system.ts";
import { readFilesConfig } from "../files/config.ts";
import { startFilesService } from "./services.ts";

/** `./loupe up`: both services in one process, with what they need installed first. */
export async function up(_args: string[]): Promise<number | undefined> {
  const common = readCommonConfig();
  const filesConfig = readFilesConfig();
  const logger = createLogger(common.logLevel, "loupe");
  if (!filesConfig.clamdSocket && !filesConfig.clamdHost) ensureDebianPackages(["clamav-daemon"], logger);
  const files = await startFilesService(common, filesConfig, logger.child({ service: "files" }));
  const lines = [
    "",
    "Loupe is up.",
    `  files   ${files.url}        docs: ${files.url}/docs`,
    "  intel   not built yet",
    "",
    "Ctrl-C stops everything.",
    "",
  ];
  process.stdout.write(lines.join("\n"));
  closeOnSignals(logger, [files.close]);
  return undefined;
}
