/** Shared by connector tests: recorded vendor answers, and a fetch context aimed at a fake vendor. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createVendorHttp } from "../../src/intel/connectors/http.ts";
import type { FetchContext } from "../../src/intel/connectors/types.ts";

const CONNECTORS = path.join(import.meta.dirname, "..", "..", "src", "intel", "connectors");

/** Where connector `id` keeps its recorded answer `name`. */
export const fixturePath = (id: string, name: string) =>
  path.join(CONNECTORS, id, "fixtures", `${name}.json`);

/** The recorded answers connector `id` ships (file names without `.json`); none when it has no folder. */
export function fixtureNames(id: string): string[] {
  const dir = path.join(CONNECTORS, id, "fixtures");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}

/** Recorded answer `name` of connector `id`, parsed. */
// biome-ignore lint/suspicious/noExplicitAny: fixtures are vendor JSON, read loosely by tests.
export function fixture(id: string, name: string): any {
  return JSON.parse(readFileSync(fixturePath(id, name), "utf8"));
}

/** What the framework hands a connector's fetch: HTTP pinned to `baseUrl`, no retries, short time limits. */
export function vendorContext(baseUrl: string): FetchContext {
  const signal = AbortSignal.timeout(5000);
  return {
    http: createVendorHttp({ baseUrl, timeoutMs: 2000, retries: 0, maxBackoffMs: 0, signal }),
    signal,
  };
}
