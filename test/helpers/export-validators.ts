/**
 * The validator of each export format, by its `format=` name: what the format's own tooling would
 * accept (OASIS schemas, MISP core format, Colander's models). test/intel/export/formats.test.ts
 * fails while a row of EXPORT_TABLE has none, so a new format cannot ship unchecked.
 */
import { colanderProblems } from "./colander-validator.ts";
import type { Json } from "./json.ts";
import { mispProblems } from "./misp-validator.ts";
import { stixProblems } from "./stix-validator.ts";

/** Every problem found in an exported body; empty means valid. */
export type ExportValidator = (body: Json) => string[];

export const EXPORT_VALIDATORS: Record<string, ExportValidator> = {
  stix: (body) => (Array.isArray(body?.objects) ? stixProblems(body) : ["not a bundle: no objects"]),
  misp: mispProblems,
  colander: colanderProblems,
};

/** The validator of `format`; throws, naming this file, when there is none. */
export function exportValidator(format: string): ExportValidator {
  const validator = EXPORT_VALIDATORS[format];
  if (!validator)
    throw new Error(`export format ${format} has no validator in test/helpers/export-validators.ts`);
  return validator;
}
