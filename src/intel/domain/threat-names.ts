/**
 * One threat, one entity: vendors spell a family differently ("AgentTesla", "Agent Tesla",
 * "agent_tesla", "Agenttesla"). Names of the THREAT super type are compared folded — accents,
 * case, spaces and punctuation dropped — and the first spelling saved becomes the entity's name
 * (and its type: vendors also disagree on RAT vs MALWARE). Every vendor's own spelling is added to
 * the entity's `aliases` attribute (comma-separated, merged across vendors by the store).
 */
import type { EntityRef, Fragment } from "../model/graph.ts";
import { ALIASES } from "../store/graph.ts";

export const THREAT = "THREAT";

/** "Agent Tesla", "AgentTesla", "agent_tesla", "Agént-Tesla" → "agenttesla"; "" when nothing is left. */
export function foldThreatName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** Finds (or records) the entity a folded threat name stands for: the store keeps the first spelling. */
export type ThreatResolver = (folded: string, proposed: EntityRef) => Promise<EntityRef>;

/** A vendor's alias list (comma-separated) with its own spelling added (commas in it would split it). */
const withSpelling = (aliases: string | undefined, name: string) =>
  [aliases, name.replace(/,/g, " ")].filter(Boolean).join(",");

const sameRef = (a: EntityRef, b: EntityRef) =>
  a.superType === b.superType && a.type === b.type && a.name === b.name;

/**
 * The fragment with every THREAT named as the entity it stands for; an entity renamed so keeps the
 * vendor's spelling in `aliases`. The subject itself is never renamed (it is what was asked about).
 */
export async function unifyThreatNames(
  fragment: Fragment,
  root: EntityRef,
  resolve: ThreatResolver,
): Promise<Fragment> {
  const canonical = new Map<string, EntityRef>();
  const refs = [
    ...fragment.entities,
    ...fragment.relations.flatMap((r) => [r.from, r.to]),
    ...fragment.events.map((e) => e.involved),
  ];
  for (const ref of refs) {
    const folded = foldThreatName(ref.name);
    if (ref.superType !== THREAT || !folded || sameRef(ref, root) || canonical.has(ref.name)) continue;
    canonical.set(
      ref.name,
      await resolve(folded, { superType: ref.superType, type: ref.type, name: ref.name }),
    );
  }
  if (canonical.size === 0) return fragment;
  const rename = <T extends EntityRef>(ref: T): T => {
    const to = ref.superType === THREAT && !sameRef(ref, root) ? canonical.get(ref.name) : undefined;
    return to ? { ...ref, type: to.type, name: to.name } : ref;
  };
  return {
    entities: fragment.entities.map((e) =>
      e.superType === THREAT && canonical.has(e.name) && !sameRef(e, root)
        ? {
            ...rename(e),
            attributes: { ...e.attributes, [ALIASES]: withSpelling(e.attributes?.[ALIASES], e.name) },
          }
        : e,
    ),
    relations: fragment.relations.map((r) => ({ ...r, from: rename(r.from), to: rename(r.to) })),
    events: fragment.events.map((ev) => ({ ...ev, involved: rename(ev.involved) })),
  };
}
