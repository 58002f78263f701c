/**
 * Typed environment settings. Each service declares its settings with these builders; values are
 * parsed and validated once at start, and every problem is reported together. A setting has one
 * name with its service's prefix and may keep older names as aliases: read when the name is unset.
 */

export interface Setting<T> {
  readonly env: string;
  /** Older names still read when `env` is unset (documented beside it). */
  readonly aliases: readonly string[];
  readonly defaultValue: T;
  readonly describe: string;
  /** How the default reads in the docs when it depends on the machine ("number of CPU cores"). */
  readonly documentedDefault?: string;
  parse(raw: string): T;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** A setting's name, or its name then its aliases: `["FILES_MAX_FILE_SIZE", "MAX_FILE_SIZE"]`. */
export type SettingNames = string | readonly [name: string, ...aliases: string[]];

export function setting<T>(
  names: SettingNames,
  defaultValue: T,
  describe: string,
  parse: (raw: string) => T,
): Setting<T> {
  const [env, ...aliases] = typeof names === "string" ? [names] : names;
  return { env: env as string, aliases, defaultValue, describe, parse };
}

/** The name a setting is given by in `env` (itself, else the first alias set), or undefined. */
export function nameGiven(s: Pick<Setting<unknown>, "env" | "aliases">, env: NodeJS.ProcessEnv) {
  return [s.env, ...s.aliases].find((name) => env[name] !== undefined && env[name] !== "");
}

export function integer(
  names: SettingNames,
  defaultValue: number,
  describe: string,
  bounds: { min?: number; max?: number; documentedDefault?: string } = {},
): Setting<number> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER, documentedDefault } = bounds;
  const parsed = setting(names, defaultValue, describe, (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be a whole number, got "${raw}"`);
    const value = Number(raw.trim());
    if (value < min || value > max) throw new Error(`must be between ${min} and ${max}, got ${value}`);
    return value;
  });
  return documentedDefault === undefined ? parsed : { ...parsed, documentedDefault };
}

export function text(names: SettingNames, defaultValue: string, describe: string): Setting<string> {
  return setting(names, defaultValue, describe, (raw) => raw);
}

export function optionalText(names: SettingNames, describe: string): Setting<string | undefined> {
  return setting<string | undefined>(names, undefined, describe, (raw) => (raw === "" ? undefined : raw));
}

export function flag(names: SettingNames, defaultValue: boolean, describe: string): Setting<boolean> {
  return setting(names, defaultValue, describe, (raw) => {
    const v = raw.trim().toLowerCase();
    if (["1", "true", "yes", "on"].includes(v)) return true;
    if (["0", "false", "no", "off", ""].includes(v)) return false;
    throw new Error(`must be true/false (or 1/0), got "${raw}"`);
  });
}

/** A comma-separated list (blanks dropped); `none` is the empty list (an empty value keeps the default). */
export function list(
  names: SettingNames,
  defaultValue: readonly string[],
  describe: string,
): Setting<readonly string[]> {
  return {
    ...setting<readonly string[]>(names, defaultValue, describe, (raw) =>
      raw.trim() === "none"
        ? []
        : raw
            .split(",")
            .map((v) => v.trim())
            .filter((v) => v !== ""),
    ),
    documentedDefault: defaultValue.join(","),
  };
}

export function oneOf<const T extends string>(
  names: SettingNames,
  defaultValue: T,
  describe: string,
  allowed: readonly T[],
): Setting<T> {
  return setting(names, defaultValue, describe, (raw) => {
    const v = raw.trim().toLowerCase() as T;
    if (!allowed.includes(v)) throw new Error(`must be one of ${allowed.join(", ")}, got "${raw}"`);
    return v;
  });
}

export function httpUrl(names: SettingNames, defaultValue: string, describe: string): Setting<string> {
  return setting(names, defaultValue, describe, (raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`must be an http(s) URL, got "${raw}"`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`must be an http(s) URL`);
    return raw.replace(/\/+$/, "");
  });
}

export type SettingsSpec = Record<string, Setting<unknown>>;
export type SettingsOf<S extends SettingsSpec> = {
  readonly [K in keyof S]: S[K] extends Setting<infer T> ? T : never;
};

/** Reads every setting of `spec` from `env`; throws one ConfigError listing all bad values. */
export function readSettings<S extends SettingsSpec>(
  spec: S,
  env: NodeJS.ProcessEnv = process.env,
): SettingsOf<S> {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(spec)) {
    // The name wins over an alias; an empty value counts as unset where there is a default.
    const name = nameGiven(s, env) ?? s.env;
    const raw = env[name];
    if (raw === undefined || (raw === "" && s.defaultValue !== undefined)) {
      out[key] = s.defaultValue;
      continue;
    }
    try {
      out[key] = s.parse(raw);
    } catch (err) {
      problems.push(`${name} ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as SettingsOf<S>;
}
