/**
 * The result document Colander reads: {root_entity, entities, events, relations, graph, sources}.
 * `events` are the root's only (Threatr's contract: Colander imports each as the root's);
 * events about neighbours are kept in `neighbour_events`.
 */

import { fromStored, threatrName } from "../model/markings.ts";
import { findSuperType, findType } from "../model/taxonomy.ts";
import { type Neighbourhood, parseAttributes } from "../store/graph.ts";
import type { EntitiesTable, EventsTable, RelationsTable } from "../store/schema.ts";
import { toMermaid } from "./mermaid.ts";
import type { NobodyAsked } from "./nobody-asked.ts";
import type { SourceView } from "./sources.ts";

export interface TypeRefJson {
  name: string;
  short_name: string;
  description: string;
  nf_icon: string;
}

export type { SourceOutcome, SourceView } from "./sources.ts";

export function superTypeJson(shortName: string): TypeRefJson {
  const st = findSuperType(shortName);
  return {
    name: st?.name ?? shortName,
    short_name: shortName,
    description: st?.name ?? shortName,
    nf_icon: "",
  };
}

export function typeJson(superType: string, shortName: string): TypeRefJson {
  const t = findType(superType, shortName);
  return {
    name: t?.name ?? shortName,
    short_name: shortName,
    description: t?.description ?? shortName,
    nf_icon: t?.icon ?? "",
  };
}

/** How a document is built: entities' exact TLP 2.0 levels (exports), and why nobody was asked. */
export interface DocumentOptions {
  exactMarkings?: boolean;
  nobodyAsked?: NobodyAsked | null;
}

export function entityJson(e: EntitiesTable, exactMarkings = false) {
  return {
    id: e.id,
    super_type: superTypeJson(e.super_type),
    type: typeJson(e.super_type, e.type),
    name: e.name,
    description: e.description,
    source_url: e.source_url,
    created_at: e.created_at,
    updated_at: e.updated_at,
    tlp: exactMarkings ? fromStored(e.tlp) : threatrName(e.tlp),
    pap: exactMarkings ? fromStored(e.pap) : threatrName(e.pap),
    attributes: parseAttributes(e.attributes),
  };
}

export function eventJson(e: EventsTable) {
  return {
    id: e.id,
    type: typeJson("EVENT", e.type),
    first_seen: e.first_seen,
    last_seen: e.last_seen,
    count: e.count,
    name: e.name,
    created_at: e.created_at,
    updated_at: e.updated_at,
    description: e.description,
    attributes: parseAttributes(e.attributes),
    involved_entity: e.involved_entity,
  };
}

export function relationJson(r: RelationsTable) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    created_at: r.created_at,
    attributes: parseAttributes(r.attributes),
    obj_from: r.obj_from,
    obj_to: r.obj_to,
  };
}

/** `localeCompare`'s order (same locale, same options) at a fraction of its cost on large results. */
const compare = new Intl.Collator().compare;

const byEntity = (a: EntitiesTable, b: EntitiesTable) =>
  compare(a.super_type, b.super_type) ||
  compare(a.type, b.type) ||
  compare(a.name, b.name) ||
  compare(a.id, b.id);

/**
 * The document of a neighbourhood. `nobody_asked` and `sources` come last, in that order: a
 * rendered document (built without them) has them filled in per answer (`withSources`).
 */
export function buildDocument(
  n: Neighbourhood,
  sources: Record<string, SourceView>,
  opts: DocumentOptions = {},
) {
  const exact = opts.exactMarkings === true;
  const others = n.entities.filter((e) => e.id !== n.root.id).sort(byEntity);
  const relations = [...n.relations].sort(
    (a, b) => compare(a.name, b.name) || compare(a.obj_from, b.obj_from) || compare(a.obj_to, b.obj_to),
  );
  const events = [...n.events].sort(
    (a, b) => compare(a.first_seen, b.first_seen) || compare(a.name, b.name) || compare(a.id, b.id),
  );
  const ordered = [n.root, ...others];
  const graph = toMermaid(
    ordered.map((e) => ({ id: e.id, label: `${e.type}: ${e.name}` })),
    relations.map((r) => ({ from: r.obj_from, to: r.obj_to, label: r.name })),
  );
  return {
    root_entity: entityJson(n.root, exact),
    entities: others.map((e) => entityJson(e, exact)),
    events: events.filter((e) => e.involved_entity === n.root.id).map(eventJson),
    neighbour_events: events.filter((e) => e.involved_entity !== n.root.id).map(eventJson),
    relations: relations.map(relationJson),
    graph,
    /** Entities were left out: more were within reach than INTEL_RESULT_MAX_ENTITIES. */
    capped: n.capped ?? false,
    nobody_asked: opts.nobodyAsked ?? null,
    sources,
  };
}
