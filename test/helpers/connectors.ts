/** Shared by connector tests: recorded vendor answers, and a fetch context aimed at a fake vendor. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createVendorHttp } from "../../src/intel/connectors/http.ts";
import type { FetchContext } from "../../src/intel/connectors/types.ts";

const FIXTURES = path.join(import.meta.dirname, "..", "fixtures");

/** test/fixtures/<vendor>/<name>.json, parsed. */
// biome-ignore lint/suspicious/noExplicitAny: fixtures are vendor JSON, read loosely by tests.
export function fixture(vendor: string, name: string): any {
  return JSON.parse(readFileSync(path.join(FIXTURES, vendor, `${name}.json`), "utf8"));
}

/** What the framework hands a connector's fetch: HTTP pinned to `baseUrl`, no retries, short time limits. */
export function vendorContext(baseUrl: string): FetchContext {
  const signal = AbortSignal.timeout(5000);
  return {
    http: createVendorHttp({ baseUrl, timeoutMs: 2000, retries: 0, maxBackoffMs: 0, signal }),
    signal,
  };
}
