/**
 * Checks MISP events against the MISP core format draft (draft-dulaunoy-misp-core-format, vendored
 * under test/fixtures/misp-core-format): its JSON Schema, its table of valid category-type pairs,
 * and the MUSTs its prose states (fields present, UUIDs, Unix timestamps and enumerations as
 * strings, references that point inside the event).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import type { Json } from "./json.ts";

const DIR = path.join(import.meta.dirname, "../fixtures/misp-core-format");
const read = (name: string) => JSON.parse(readFileSync(path.join(DIR, name), "utf8"));

// The draft's schema says draft-04; its keywords mean the same in Ajv's default draft.
const { $schema: _draft, id: _id, ...schema } = read("schema.json");
const validateSchema = new Ajv({ allErrors: true, strict: false }).compile(schema);
const categoryTypes: Record<string, string[]> = read("category-types.json");

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DIGITS = /^\d+$/;

function attributeProblems(a: Json, where: string): string[] {
  const problems: string[] = [];
  if (!UUID.test(a.uuid ?? "")) problems.push(`${where}: uuid ${a.uuid}`);
  if (!categoryTypes[a.category]?.includes(a.type))
    problems.push(`${where}: ${a.category}/${a.type} is not a valid pair`);
  if (typeof a.to_ids !== "boolean" || typeof a.deleted !== "boolean")
    problems.push(`${where}: to_ids/deleted`);
  if (typeof a.value !== "string" || a.value === "") problems.push(`${where}: value`);
  if (!["0", "1", "2", "3", "4", "5"].includes(a.distribution)) problems.push(`${where}: distribution`);
  if (!DIGITS.test(a.timestamp ?? "")) problems.push(`${where}: timestamp ${a.timestamp}`);
  for (const t of a.Tag ?? []) if (!t.name) problems.push(`${where}: tag without a name`);
  return problems;
}

const OBJECT_MUSTS = [
  "name",
  "meta-category",
  "description",
  "template_uuid",
  "template_version",
  "timestamp",
];

function objectProblems(o: Json, where: string, uuids: Set<string>): string[] {
  const problems: string[] = [];
  for (const key of OBJECT_MUSTS)
    if (typeof o[key] !== "string" || o[key] === "") problems.push(`${where}: ${key}`);
  if (!UUID.test(o.uuid ?? "") || !UUID.test(o.template_uuid ?? "")) problems.push(`${where}: uuid`);
  for (const [i, a] of (o.Attribute ?? []).entries()) {
    problems.push(...attributeProblems(a, `${where}.Attribute[${i}]`));
    if (!a.object_relation) problems.push(`${where}.Attribute[${i}]: object_relation`);
  }
  for (const r of o.ObjectReference ?? []) {
    if (r.object_uuid !== o.uuid) problems.push(`${where}: a reference from another object`);
    if (!uuids.has(r.referenced_uuid))
      problems.push(`${where}: reference to ${r.referenced_uuid}, not in the event`);
    if (!r.relationship_type) problems.push(`${where}: reference without relationship_type`);
  }
  return problems;
}

/** Every problem found; empty means the event follows the format. */
export function mispProblems(doc: Json): string[] {
  const problems: string[] = [];
  if (!validateSchema(doc)) problems.push(`schema: ${JSON.stringify(validateSchema.errors)}`);
  const ev = doc?.Event ?? {};
  if (!UUID.test(ev.uuid ?? "")) problems.push("Event.uuid");
  if (typeof ev.info !== "string" || ev.info.length === 0 || ev.info.length > 256)
    problems.push("Event.info");
  if (!/^\d{4}-\d{2}-\d{2}$/.test(ev.date ?? "")) problems.push("Event.date");
  if (typeof ev.published !== "boolean") problems.push("Event.published");
  for (const key of ["timestamp", "publish_timestamp"])
    if (!DIGITS.test(ev[key] ?? "")) problems.push(`Event.${key}`);
  if (!["1", "2", "3", "4"].includes(ev.threat_level_id)) problems.push("Event.threat_level_id");
  if (!["0", "1", "2"].includes(ev.analysis)) problems.push("Event.analysis");
  if (!["0", "1", "2", "3", "4"].includes(ev.distribution)) problems.push("Event.distribution");
  const attributes: Json[] = ev.Attribute ?? [];
  const objects: Json[] = ev.Object ?? [];
  const all = [...attributes, ...objects, ...objects.flatMap((o) => o.Attribute ?? [])];
  const uuids = new Set(all.map((x) => x.uuid));
  if (uuids.size !== all.length) problems.push("uuids are not unique");
  for (const [i, a] of attributes.entries()) problems.push(...attributeProblems(a, `Attribute[${i}]`));
  for (const [i, o] of objects.entries()) problems.push(...objectProblems(o, `Object[${i}]`, uuids));
  return problems;
}
