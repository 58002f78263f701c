import { readCommonConfig } from "../common/config.ts";
import { closeOnSignals } from "../common/http.ts";
import { createLogger } from "../common/logger.ts";
import { ensureDebianPackages } from "../common/system.ts";
import { readFilesConfig } from "../files/config.ts";
import { readIntelConfig } from "../intel/config.ts";
import { startFilesService, startIntelService } from "./services.ts";

/** `./loupe up`: both services in one process (intel with its embedded worker), what they need installed first. */
export async function up(_args: string[]): Promise<number | undefined> {
  const common = readCommonConfig();
  const filesConfig = readFilesConfig();
  const intelConfig = readIntelConfig();
  const logger = createLogger(common.logLevel, "loupe");
  if (!filesConfig.clamdSocket && !filesConfig.clamdHost) ensureDebianPackages(["clamav-daemon"], logger);
  const files = await startFilesService(common, filesConfig, logger.child({ service: "files" }));
  const intel = await startIntelService(common, intelConfig, logger.child({ service: "intel" }), {
    worker: true,
  });
  const lines = [
    "",
    "Loupe is up.",
    `  files   ${files.url}    docs: ${files.url}/docs`,
    `  intel   ${intel.url}    docs: ${intel.url}/api/docs/ (with an API key or a panel login)`,
    `  admin   ${intel.adminUrl}    (log in with an admin user)`,
    "",
    "First time? Create an admin account (it prints a password), then log in to the panel:",
    "  ./loupe intel user create --username you --admin",
    "API keys for clients: in the panel (Users), or ./loupe intel token create --username you",
    "",
    "Ctrl-C stops everything.",
    "",
  ];
  process.stdout.write(lines.join("\n"));
  closeOnSignals(logger, [files.close, intel.close]);
  return undefined;
}
