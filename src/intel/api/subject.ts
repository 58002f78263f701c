/** A request's (super type, type, value) checked against the taxonomy: a Subject, or a 400 saying what is wrong. */
import { Type } from "typebox";
import { badRequest } from "../../common/errors.ts";
import type { Subject } from "../model/graph.ts";
import { checkValue, findSuperType, findType } from "../model/taxonomy.ts";

export function parseSubject(input: { super_type: string; type: string; value: string }): Subject {
  const superType = findSuperType(input.super_type);
  if (!superType) {
    throw badRequest("unknown_super_type", `Unknown super type "${input.super_type}". See GET /api/types/.`);
  }
  const type = findType(superType.shortName, input.type);
  if (!type) {
    throw badRequest(
      "unknown_type",
      `Unknown type "${input.type}" for ${superType.shortName}. See GET /api/types/.`,
    );
  }
  // The stored subject is the normalised value: "Example.org." and "example.org" are one subject.
  const checked = checkValue(type, input.value);
  if ("problem" in checked) throw badRequest(checked.code, checked.problem);
  return { superType: superType.shortName, type: type.shortName, value: checked.value };
}

/** The fields naming a subject, checked the same way in a single ask and in each item of a bulk ask. */
export const SubjectFields = {
  super_type: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "Super type short name, e.g. OBSERVABLE (case-insensitive).",
  }),
  type: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "Type short name, e.g. IPV4 (case-insensitive).",
  }),
  value: Type.String({ minLength: 1, maxLength: 2048 }),
};

const MARKING_LEVELS =
  "CLEAR, GREEN, AMBER, AMBER+STRICT or RED (case-insensitive; `TLP:`/`PAP:` prefixes and WHITE for CLEAR accepted)";

/**
 * How a client marks a subject, in a single ask, a bulk ask and each of its subjects. The stricter
 * of these and the subject's stored marks decides which vendors may receive it (docs/api.md).
 */
export const MarkingFields = {
  tlp: Type.Optional(
    Type.String({
      maxLength: 32,
      description: `TLP of the subject: ${MARKING_LEVELS}; default INTEL_DEFAULT_TLP. Raised to the subject's stored TLP. From AMBER up, third-party vendors are not asked unless INTEL_TLP_ALLOW allows them.`,
    }),
  ),
  pap: Type.Optional(
    Type.String({
      maxLength: 32,
      description: `PAP of the subject, same levels; default INTEL_DEFAULT_PAP. Raised to the subject's stored PAP (INTEL_PAP_ALLOW).`,
    }),
  ),
};
