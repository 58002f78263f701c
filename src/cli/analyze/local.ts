/**
 * `--local`: the files service built in this process (its public entry point, buildFilesServer)
 * on a private loopback port and temp folder, so a file takes exactly the path it takes through
 * a running service. clamd is the configured one, else one started for this run in a temp folder.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { readCommonConfig } from "../../common/config.ts";
import { createLogger } from "../../common/logger.ts";
import { findClamd, type ManagedClamd, startManagedClamd } from "../../files/clamd/managed.ts";
import { readFilesConfig } from "../../files/config.ts";
import { buildFilesServer } from "../../files/server.ts";

export interface LocalFiles {
  url: string;
  close(): Promise<void>;
}

export async function startLocalFiles(env: NodeJS.ProcessEnv): Promise<LocalFiles> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-analyze-"));
  const common = { ...readCommonConfig(env), host: "127.0.0.1", rateLimitPerMinute: 0 };
  const files = { ...readFilesConfig(env), port: 0, tmpDir: path.join(dir, "uploads") };
  // Logs go to stderr: stdout carries the report.
  const logger = createLogger(env.LOUPE_LOG_LEVEL ?? env.LOG_LEVEL ?? "warn", "files", pino.destination(2));
  let clamd: ManagedClamd | undefined;
  if (!files.clamdSocket && !files.clamdHost && findClamd()) {
    clamd = await startManagedClamd(path.join(dir, "clamd"), {
      maxFileSize: files.maxFileSize,
      log: logger,
    }).catch((err: unknown) => {
      logger.warn(`could not start clamd: ${(err as Error).message}`);
      return undefined;
    });
  }
  const app = await buildFilesServer({ common, files, logger, managedClamd: clamd?.address });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await clamd?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
