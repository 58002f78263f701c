/**
 * Validates STIX 2.1 bundles with the OASIS JSON schemas (test/fixtures/stix-2.1-schemas, draft
 * 2020-12): the bundle, then each object against its own type's schema (the bundle's `oneOf` names
 * no culprit), and that every `*_ref` / `*_refs` points to an object of the bundle.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { domainToASCII } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

const ROOT = path.join(import.meta.dirname, "../fixtures/stix-2.1-schemas/schemas");
const BASE = "http://raw.githubusercontent.com/oasis-open/cti-stix2-json-schemas/stix2.1/schemas";

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

// The three formats the schemas use, checked as their RFCs say (Ajv knows none of them by itself).
const ajv = new Ajv2020({ allErrors: true, strict: false, unicodeRegExp: false });
ajv.addFormat("uri", (v: string) => URL.canParse(v) && /^[a-z][a-z0-9+.-]*:/i.test(v));
ajv.addFormat("email", (v: string) => /^[^\s@]+@[^\s@]+$/.test(v));
ajv.addFormat("idn-hostname", (v: string) => {
  const ascii = domainToASCII(v);
  return ascii.length > 0 && ascii.length <= 253 && ascii.split(".").every((l) => HOST_LABEL.test(l));
});

const schemaIds: string[] = [];
for (const folder of readdirSync(ROOT))
  for (const file of readdirSync(path.join(ROOT, folder))) {
    const schema = JSON.parse(readFileSync(path.join(ROOT, folder, file), "utf8"));
    ajv.addSchema(schema);
    schemaIds.push(schema.$id);
  }
// Compiled now, not during a test: compiling takes seconds on a loaded machine, longer than a
// server keeps an idle connection open.
for (const id of schemaIds) ajv.getSchema(id);

const FOLDERS = ["common", "observables", "sdos", "sros"];

/** The schema of one STIX type (`domain-name`, `indicator`…). */
function typeSchema(type: string) {
  for (const folder of FOLDERS) {
    const validate = ajv.getSchema(`${BASE}/${folder}/${type}.json`);
    if (validate) return validate;
  }
  return undefined;
}

type StixObject = { type: string; id: string } & Record<string, unknown>;

/** Every problem found: schema errors (per object) and dangling references. Empty means valid. */
export function stixProblems(bundle: { objects: StixObject[] }): string[] {
  const problems: string[] = [];
  const ids = new Set(bundle.objects.map((o) => o.id));
  for (const obj of bundle.objects) {
    const validate = typeSchema(obj.type);
    if (!validate) problems.push(`${obj.id}: no schema for type ${obj.type}`);
    else if (!validate(obj as unknown)) problems.push(`${obj.id}: ${ajv.errorsText(validate.errors)}`);
    for (const [key, value] of Object.entries(obj)) {
      if (!key.endsWith("_ref") && !key.endsWith("_refs")) continue;
      for (const ref of [value].flat() as string[])
        if (!ids.has(ref)) problems.push(`${obj.id}: ${key} points to ${ref}, not in the bundle`);
    }
  }
  // The bundle's own check names no culprit among its objects: only when they all passed.
  const validateBundle = ajv.getSchema(`${BASE}/common/bundle.json`)!;
  if (problems.length === 0 && !validateBundle(bundle))
    problems.push(`bundle: ${ajv.errorsText(validateBundle.errors)}`);
  return problems;
}
