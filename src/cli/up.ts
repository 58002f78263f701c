/**
 * `./loupe up`: files, the intel API and the intel worker, each its own OS process under a
 * supervisor, so a crash of one never stops the others. The intel API starts (and migrates the
 * database) before the worker, so two processes never create a fresh schema at once.
 */
import { readCommonConfig } from "../common/config.ts";
import { createLogger, type Logger } from "../common/logger.ts";
import { ensureDebianPackages } from "../common/system.ts";
import { readFilesConfig } from "../files/config.ts";
import { readIntelConfig } from "../intel/config.ts";
import { writeInstanceFile } from "./config.ts";
import type { ReadyMessage } from "./supervised.ts";
import { createSupervisor, type Supervisor } from "./supervisor.ts";

export async function up(_args: string[]): Promise<number | undefined> {
  const common = readCommonConfig();
  const filesConfig = readFilesConfig();
  readIntelConfig(); // a configuration error is told here, once, not by a child restarting
  const logger = createLogger(common.logLevel, "loupe");
  const written = writeInstanceFile();
  if (written) logger.info(`first start: this instance's settings are kept in ${written}`);
  if (!filesConfig.clamdSocket && !filesConfig.clamdHost) ensureDebianPackages(["clamav-daemon"], logger);
  const supervisor = createSupervisor({ logger });
  stopOnSignals(supervisor, logger);
  let files: ReadyMessage;
  let intel: ReadyMessage;
  try {
    [files, intel] = await Promise.all([
      supervisor.start({ name: "files", args: ["files", "serve"] }),
      supervisor.start({ name: "intel", args: ["intel", "serve", "--no-worker"] }),
    ]);
    await supervisor.start({ name: "intel-worker", args: ["intel", "worker"] });
  } catch (err) {
    logger.error({ lastStderr: (err as { lastStderr?: string[] }).lastStderr }, (err as Error).message);
    await supervisor.stop();
    return 1;
  }
  process.stdout.write(banner(files, intel, supervisor.pids()));
  return undefined;
}

function banner(files: ReadyMessage, intel: ReadyMessage, pids: Record<string, number | undefined>): string {
  return [
    "",
    "Loupe is up.",
    `  files   ${files.url}    docs: ${files.url}/docs`,
    `  intel   ${intel.url}    docs: ${intel.url}/api/docs/ (with an API key or a panel login)`,
    `  admin   ${intel.adminUrl}    (log in with an admin user)`,
    `  processes: ${Object.entries(pids)
      .map(([name, pid]) => `${name} ${pid}`)
      .join(", ")} (restarted if they die)`,
    "",
    "First time? Create an admin account (it prints a password), then log in to the panel:",
    "  ./loupe intel user create --username you --admin",
    "API keys for clients: in the panel (Users), or ./loupe intel token create --username you",
    "",
    "Ctrl-C stops everything.",
    "",
  ].join("\n");
}

/** One Ctrl-C (or SIGTERM) stops every child cleanly; a second one ends the supervisor at once. */
function stopOnSignals(supervisor: Supervisor, logger: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn("second signal: exiting now");
      process.exit(130);
    }
    stopping = true;
    logger.info({ signal }, "stopping every service");
    void supervisor.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
