/**
 * The configuration every command follows: the environment, then `--config FILE` (or LOUPE_CONFIG),
 * then `.env` at the repository root, then `<LOUPE_DATA_DIR>/loupe.env` (written by `./loupe up` on first
 * start or `./loupe config init`). The first to name a setting (by its name or an alias) wins;
 * where each came from is kept for `./loupe config show`.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { commonSettings, dataDirOf, ROOT } from "../common/config.ts";
import type { SettingsSpec } from "../common/settings.ts";
import { filesSettings } from "../files/config.ts";
import { intelSettings } from "../intel/config.ts";
import { analyzeSettings } from "./analyze/settings.ts";
import { doctorSettings } from "./doctor/settings.ts";
import { UsageError } from "./usage.ts";

/** Every settings spec of the project, by group (what `./loupe config show` lists). */
export const SETTINGS_SPECS: Record<string, SettingsSpec> = {
  common: commonSettings,
  files: filesSettings,
  intel: intelSettings,
  analyze: analyzeSettings,
  doctor: doctorSettings,
};

/** Each name a setting is read by (its own and its aliases) → all of that setting's names. */
const namesOfSetting = new Map<string, string[]>();
for (const spec of Object.values(SETTINGS_SPECS))
  for (const s of Object.values(spec))
    for (const n of [s.env, ...s.aliases]) namesOfSetting.set(n, [s.env, ...s.aliases]);

/** Where each variable of the process's environment came from: "environment" or a file's path. */
export const origins = new Map<string, string>();
/** The configuration files read, in the order they were read. */
export const filesRead: string[] = [];

export const CONFIG_FILE_NAME = "loupe.env";

/** The instance's own configuration file: `<LOUPE_DATA_DIR>/loupe.env`. */
export function instanceConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDirOf(env), CONFIG_FILE_NAME);
}

/** Takes `--config FILE` (or `--config=FILE`) out of argv; the rest is the command line. */
function takeConfigOption(argv: string[]): { argv: string[]; file: string | undefined } {
  const end = argv.indexOf("--");
  const head = end === -1 ? argv : argv.slice(0, end);
  const tail = end === -1 ? [] : argv.slice(end);
  const rest: string[] = [];
  let file: string | undefined;
  for (let i = 0; i < head.length; i++) {
    const arg = head[i] as string;
    if (arg === "--config") {
      file = head[++i];
      if (!file) throw new UsageError("--config needs a file");
    } else if (arg.startsWith("--config=")) file = arg.slice("--config=".length);
    else rest.push(arg);
  }
  return { argv: [...rest, ...tail], file };
}

function readInto(file: string, required: boolean): void {
  if (!existsSync(file)) {
    if (required) throw new UsageError(`no configuration file at ${file}`);
    return;
  }
  const values = parseEnv(readFileSync(file, "utf8"));
  for (const [name, value] of Object.entries(values)) {
    // A setting named earlier (by this name or another of its names) keeps that value.
    if ((namesOfSetting.get(name) ?? [name]).some((n) => process.env[n] !== undefined)) continue;
    process.env[name] = value;
    origins.set(name, file);
  }
  filesRead.push(file);
}

/** Loads the configuration files into process.env (never over a variable already set); returns argv without --config. */
export function loadConfiguration(argv: string[]): string[] {
  for (const name of Object.keys(process.env)) origins.set(name, "environment");
  const taken = takeConfigOption(argv);
  const explicit = taken.file ?? process.env.LOUPE_CONFIG?.trim();
  if (explicit) readInto(path.resolve(explicit), true);
  readInto(path.join(ROOT, ".env"), false);
  readInto(instanceConfigPath(), false);
  return taken.argv;
}
