/**
 * The one logger factory: pino, pretty in a terminal and JSON lines otherwise. Secrets (API keys,
 * passwords, cookies) are redacted by path wherever they sit in a logged object, not at each call.
 */
import pino, { type Logger, type LoggerOptions } from "pino";

export type { Logger };

/** Secrets that must never reach a log line, wherever they appear in a logged object. */
const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-apikey"]',
  'res.headers["set-cookie"]',
  "*.api_key",
  "*.password",
  "*.token",
];

export function createLogger(level: string, name?: string, destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    name,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
  };
  if (!destination && process.stdout.isTTY && level !== "silent") {
    return pino({
      ...options,
      transport: { target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss.l" } },
    });
  }
  return destination ? pino(options, destination) : pino(options);
}
