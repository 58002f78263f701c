/**
 * Setting a subject's stored TLP/PAP by hand: an administrator's decision (panel and CLI), written
 * to the audit log. Asks only ever raise a subject's marking (sticky, domain/requests.ts); this is
 * the one way to lower it. The value is normalised as asks normalise it, so it names the same entity.
 */
import { MARKINGS, type Marking, parseMarking, storedName } from "../model/markings.ts";
import { checkValue, findSuperType, findType } from "../model/taxonomy.ts";
import { entityMarks, setMarks } from "../store/graph.ts";
import { bumpGraphVersion } from "../store/requests.ts";
import { recordAudit } from "./audit.ts";
import type { WithStore } from "./index.ts";

/** Why a marking cannot be set (the door shows or prints the message). */
export class MarkingError extends Error {}

export interface SubjectName {
  superType: string;
  type: string;
  value: string;
}

/** The subject as asks store it (types by their short names, the value normalised), or a MarkingError. */
export function storedSubject(input: SubjectName): SubjectName {
  const superType = findSuperType(input.superType);
  const type = superType && findType(superType.shortName, input.type);
  if (!superType || !type) throw new MarkingError(`unknown type ${input.superType} / ${input.type}`);
  const checked = checkValue(type, input.value);
  if ("problem" in checked) throw new MarkingError(checked.problem);
  return { superType: superType.shortName, type: type.shortName, value: checked.value };
}

/** A level as a person wrote it, or a MarkingError naming the levels. */
export function markingLevel(kind: "TLP" | "PAP", raw: string): Marking {
  const level = parseMarking(raw);
  if (!level)
    throw new MarkingError(`${kind} must be one of ${MARKINGS.join(", ")}, not "${raw.slice(0, 32)}"`);
  return level;
}

/**
 * Sets the subject's TLP and/or PAP (lower or higher) and records who did it, with the levels
 * before and after. Answers rendered before are renewed. A MarkingError when no such subject is stored.
 */
export async function setSubjectMarking(
  services: WithStore,
  actor: string,
  input: SubjectName,
  levels: { tlp?: Marking; pap?: Marking },
): Promise<{
  subject: SubjectName;
  before: { tlp: string; pap: string };
  after: { tlp: string; pap: string };
}> {
  const { db } = services.store;
  const subject = storedSubject(input);
  const ref = { superType: subject.superType, type: subject.type, name: subject.value };
  const before = await entityMarks(db, ref);
  if (!before)
    throw new MarkingError(`no stored subject ${subject.superType} / ${subject.type} / ${subject.value}`);
  const after = {
    tlp: levels.tlp ? storedName(levels.tlp) : before.tlp,
    pap: levels.pap ? storedName(levels.pap) : before.pap,
  };
  await setMarks(db, ref, after);
  await bumpGraphVersion(db);
  const detail = `TLP ${before.tlp} → ${after.tlp}, PAP ${before.pap} → ${after.pap}`;
  await recordAudit(
    services,
    actor,
    "marking.set",
    `${subject.superType}/${subject.type}/${subject.value}`,
    detail,
  );
  return { subject, before, after };
}
