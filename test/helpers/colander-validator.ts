/**
 * Checks Colander feeds: the schema written from colander-data-converter's models
 * (test/fixtures/colander-feed), plus what the models check in code — keys equal ids, references
 * resolve, first seen is not after last seen.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Json } from "./json.ts";

const schema = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../fixtures/colander-feed/schema.json"), "utf8"),
);
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addFormat("date-time", (v: string) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d\d-\d\dT/.test(v));
const validate = ajv.compile(schema);

const REFERENCES = [
  "associated_threat",
  "operated_by",
  "extracted_from",
  "observed_on",
  "detected_by",
  "attributed_to",
  "target",
];

/** Every problem found; empty means Colander's converter would load the feed. */
export function colanderProblems(feed: Json): string[] {
  const problems: string[] = [];
  if (!validate(feed)) problems.push(`schema: ${ajv.errorsText(validate.errors)}`);
  const entities: Record<string, Json> = feed?.entities ?? {};
  const relations: Record<string, Json> = feed?.relations ?? {};
  for (const [key, e] of Object.entries(entities)) {
    if (key !== e.id) problems.push(`entity key ${key} is not its id ${e.id}`);
    for (const field of REFERENCES)
      if (e[field] && !entities[e[field]])
        problems.push(`${key}.${field} points to ${e[field]}, not in the feed`);
    for (const ref of e.involved_observables ?? [])
      if (entities[ref]?.colander_internal_type !== "observable")
        problems.push(`${key} involves ${ref}, not an observable`);
    if (e.first_seen && Date.parse(e.first_seen) > Date.parse(e.last_seen))
      problems.push(`${key}: first_seen after last_seen`);
  }
  for (const [key, r] of Object.entries(relations)) {
    if (key !== r.id) problems.push(`relation key ${key} is not its id ${r.id}`);
    for (const end of [r.obj_from, r.obj_to])
      if (!entities[end]) problems.push(`relation ${key} points to ${end}, not in the feed`);
  }
  return problems;
}
