/**
 * One vendor answer holds at most `INTEL_ANSWER_MAX_ENTITIES` entities: a vendor (or whoever sits
 * between it and us) can list any number of them, and each costs a write now and memory in every
 * answer and export later. The first ones named win — the root, then the answer's own order — and
 * relations and events touching a dropped one go with it; the outcome says how many there were.
 */
import { type EntityRef, type Fragment, rootRef, type Subject } from "../model/graph.ts";

/** What a capped answer reports in its source outcome (`sources.<vendor>.capped`). */
export interface AnswerCap {
  /** Distinct entities the vendor's answer named (the subject included). */
  received: number;
  /** How many of them were kept. */
  kept: number;
}

const keyOf = (r: EntityRef) => `${r.superType}\u0000${r.type}\u0000${r.name}`;

/** Every distinct entity the fragment names, in the order it names them, the subject first. */
function namedEntities(fragment: Fragment, subject: Subject): string[] {
  const keys = new Set([keyOf(rootRef(subject))]);
  for (const e of fragment.entities) keys.add(keyOf(e));
  for (const r of fragment.relations) keys.add(keyOf(r.from)).add(keyOf(r.to));
  for (const ev of fragment.events) keys.add(keyOf(ev.involved));
  return [...keys];
}

/** The fragment with at most `max` entities, and what was cut (undefined when nothing was). */
export function capAnswer(
  fragment: Fragment,
  subject: Subject,
  max: number,
): { fragment: Fragment; capped?: AnswerCap } {
  const named = namedEntities(fragment, subject);
  if (named.length <= max) return { fragment };
  const kept = new Set(named.slice(0, Math.max(1, max)));
  const keeps = (r: EntityRef) => kept.has(keyOf(r));
  return {
    fragment: {
      entities: fragment.entities.filter(keeps),
      relations: fragment.relations.filter((r) => keeps(r.from) && keeps(r.to)),
      events: fragment.events.filter((ev) => keeps(ev.involved)),
    },
    capped: { received: named.length, kept: kept.size },
  };
}
