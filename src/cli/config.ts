/**
 * `./loupe config show|init`: every setting's effective value and where it came from, and the
 * instance's own configuration file. Secrets are masked when shown and never written by init.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { derivedDefaults } from "../common/config.ts";
import { nameGiven } from "../common/settings.ts";
import { instanceConfigPath, origins, SETTINGS_SPECS } from "./configuration.ts";
import { UsageError } from "./usage.ts";

/** The settings that make an instance: written by init even when they hold their default. */
const INSTANCE = [
  "LOUPE_DATA_DIR",
  "LOUPE_HOST",
  "FILES_PORT",
  "INTEL_PORT",
  "INTEL_DATABASE_URL",
  "INTEL_BASE_URL",
  "FILES_TMP_DIR",
];

const isSecret = (name: string) => /SECRET|TOKEN|API_KEY|PASSWORD/.test(name);

interface Effective {
  name: string;
  group: string;
  value: string;
  source: string;
}

/** Every documented setting with its value now and where it came from. */
export function effectiveSettings(env: NodeJS.ProcessEnv = process.env): Effective[] {
  const derived = derivedDefaults(env);
  const out: Effective[] = [];
  for (const [group, spec] of Object.entries(SETTINGS_SPECS)) {
    for (const s of Object.values(spec)) {
      // A variable two groups read (FILES_URL: intel and analyze) is listed once.
      if (out.some((e) => e.name === s.env)) continue;
      const given = nameGiven(s, env);
      if (given !== undefined) {
        // Given by an alias: the source says which name (`loupe.env as LOUPE_DATA_DIR`).
        const source = `${origins.get(given) ?? "environment"}${given === s.env ? "" : ` as ${given}`}`;
        out.push({ name: s.env, group, value: env[given] as string, source });
      } else if (derived[s.env] !== undefined) {
        out.push({ name: s.env, group, value: derived[s.env] as string, source: "derived" });
      } else {
        const value = s.defaultValue === undefined ? "" : String(s.defaultValue);
        out.push({ name: s.env, group, value, source: "default" });
      }
    }
  }
  return out;
}

function masked(e: Effective): string {
  if (e.value === "" || !isSecret(e.name)) return maskUrlPassword(e.value);
  return "********";
}

function maskUrlPassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]+:)[^@/]+@/i, "$1********@");
}

function show(args: string[]): number {
  const { values } = parseArgs({ args, options: { json: { type: "boolean" } } });
  const rows = effectiveSettings().map((e) => ({ ...e, value: masked(e) }));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) process.stdout.write(`${r.name.padEnd(width)}  ${r.value}  (${r.source})\n`);
  return 0;
}

/** The text of an instance file: the instance's settings and whatever the environment set, API keys left out. */
export function instanceFileText(env: NodeJS.ProcessEnv = process.env): string {
  const rows = effectiveSettings(env).filter(
    (e) =>
      !isSecret(e.name) && (INSTANCE.includes(e.name) || (e.source !== "default" && e.source !== "derived")),
  );
  const lines = rows.map((r) => `${r.name}=${JSON.stringify(r.value)}`);
  return [
    "# Loupe's configuration for this instance (docs/configuration.md). Every ./loupe command reads it;",
    "# a variable set in the environment wins over it. Secrets (keys, tokens) are not written here.",
    ...lines,
    "",
  ].join("\n");
}

/** Writes `<LOUPE_DATA_DIR>/loupe.env` (mode 0600); returns its path, or null when it exists and `force` is not set. */
export function writeInstanceFile(force = false, env: NodeJS.ProcessEnv = process.env): string | null {
  const file = instanceConfigPath(env);
  if (existsSync(file) && !force) return null;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, instanceFileText(env), { mode: 0o600 });
  return file;
}

function init(args: string[]): number {
  const { values } = parseArgs({ args, options: { force: { type: "boolean" } } });
  const file = writeInstanceFile(values.force ?? false);
  if (!file)
    throw new UsageError(
      `${instanceConfigPath()} exists already (--force rewrites it from the current values)`,
    );
  process.stdout.write(`wrote ${file}\n`);
  return 0;
}

export async function config(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "show") return show(rest);
  if (sub === "init") return init(rest);
  throw new UsageError("usage: ./loupe config show [--json] | init [--force]");
}
