/**
 * Settings of `./loupe analyze` only: where the services it talks to are and how long it waits.
 * The services never read them, so they live beside the command.
 */
import { withDerivedDefaults } from "../../common/config.ts";
import { httpUrl, integer, optionalText, readSettings } from "../../common/settings.ts";

export const analyzeSettings = {
  filesUrl: {
    ...httpUrl(
      "FILES_URL",
      "http://127.0.0.1:8000",
      "`./loupe analyze`: the files service to send files to.",
    ),
    documentedDefault: "http://127.0.0.1:<FILES_PORT>",
  },
  intelUrl: {
    ...httpUrl("INTEL_URL", "http://127.0.0.1:9080", "`./loupe analyze --intel`: the intel service."),
    documentedDefault: "http://127.0.0.1:<INTEL_PORT>",
  },
  intelApiKey: optionalText("INTEL_API_KEY", "`./loupe analyze --intel`: an API key of the intel service."),
  intelMaxIndicators: integer(
    ["LOUPE_ANALYZE_INTEL_MAX_INDICATORS", "ANALYZE_INTEL_MAX_INDICATORS"],
    20,
    "`./loupe analyze --intel`: indicators sent to intel per file at most (the first found).",
    { min: 1, max: 1000 },
  ),
  intelTimeoutMs: integer(
    ["LOUPE_ANALYZE_INTEL_TIMEOUT_MS", "ANALYZE_INTEL_TIMEOUT_MS"],
    120_000,
    "`./loupe analyze --intel`: time allowed for intel's verdicts on one file's indicators, in ms.",
    { min: 1_000 },
  ),
  timeoutMs: integer(
    ["LOUPE_ANALYZE_TIMEOUT_MS", "ANALYZE_TIMEOUT_MS"],
    900_000,
    "`./loupe analyze`: time allowed for one file (upload and analysis), in ms.",
    { min: 1_000 },
  ),
};

export type AnalyzeSettings = ReturnType<typeof readAnalyzeSettings>;

/** Unset, the services are the ones `./loupe up` would start with this configuration. */
export function readAnalyzeSettings(env: NodeJS.ProcessEnv) {
  return readSettings(analyzeSettings, withDerivedDefaults(analyzeSettings, env));
}
