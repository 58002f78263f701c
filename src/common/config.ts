import path from "node:path";
import { integer, oneOf, readSettings, text } from "./settings.ts";

/** Where the repository lives; relative paths in settings are resolved against it. */
export const ROOT = process.env.LOUPE_ROOT ?? path.resolve(import.meta.dirname, "../..");

export const commonSettings = {
  logLevel: oneOf("LOG_LEVEL", "info", "Log level (pretty in a terminal, JSON lines otherwise).", [
    "fatal",
    "error",
    "warn",
    "info",
    "debug",
    "trace",
    "silent",
  ]),
  host: text("HOST", "127.0.0.1", "Address both services listen on."),
  dataDir: text("DATA_DIR", "./data", "Folder for databases, the managed clamd and other state."),
  rateLimitPerMinute: integer(
    "RATE_LIMIT_PER_MINUTE",
    0,
    "Requests per minute per client IP on each service (0 = unlimited).",
    { min: 0 },
  ),
};

export type CommonConfig = ReturnType<typeof readCommonConfig>;

export function readCommonConfig(env: NodeJS.ProcessEnv = process.env) {
  const s = readSettings(commonSettings, env);
  return { ...s, dataDir: resolveFromRoot(s.dataDir) };
}

export function resolveFromRoot(p: string): string {
  return path.isAbsolute(p) ? p : path.resolve(ROOT, p);
}

/** Reads `.env` at the repository root when present; real environment variables win. */
export function loadDotEnv(): void {
  try {
    process.loadEnvFile(path.join(ROOT, ".env"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
