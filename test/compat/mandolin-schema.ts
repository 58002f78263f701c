/**
 * Validates answers against the JSON Schemas written from Mandolin's pydantic models
 * (test/compat/schemas/mandolin-*.json); a failure names every path that does not fit.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import Schema from "typebox/schema";

const load = (name: string) =>
  JSON.parse(readFileSync(new URL(`./schemas/mandolin-${name}.json`, import.meta.url), "utf8"));

export const MANDOLIN_SCHEMAS = {
  tika: load("tika"),
  yara: load("yara"),
};

export function assertFitsSchema(schema: Schema.XSchema, value: unknown, what: string): void {
  const [ok, errors] = Schema.Errors(schema, value);
  const described = errors.map((e) => `${e.instancePath || "/"}: ${e.message}`).join("\n");
  assert.ok(ok, `${what} does not fit Mandolin's schema:\n${described}\n${JSON.stringify(value, null, 1)}`);
}
