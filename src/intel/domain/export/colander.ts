/**
 * A result document as a Colander feed: the JSON that Colander's data converter loads
 * (`ColanderFeed.load`, PiRogueToolSuite/colander-data-converter): `entities` and `relations`
 * keyed by id, each entity with its `super_type`, `type` and Colander's TLP/PAP levels. Events
 * become Event entities that involve their observables; "associated threat" fills an observable's
 * `associated_threat`. Colander has no TTP or external-document entities: those are left out.
 */
import type { ResultDocument } from "../requests.ts";
import {
  type ExportContext,
  type ExportEntity,
  type ExportEvent,
  type ExportGraph,
  exportGraph,
  superTypeOf,
  tlpLevel,
  typeOf,
} from "./graph.ts";
import { stableUuidV4 } from "./ids.ts";

/** The super types Colander's models know (`colander_internal_type` is the lower-cased short name). */
const COLANDER_SUPER_TYPES = new Set([
  "ACTOR",
  "ARTIFACT",
  "DATAFRAGMENT",
  "DETECTIONRULE",
  "DEVICE",
  "EVENT",
  "OBSERVABLE",
  "THREAT",
]);

type Json = Record<string, unknown>;

export interface ColanderFeed {
  id: string;
  name: string;
  description: string;
  entities: Record<string, Json>;
  relations: Record<string, Json>;
  cases: Record<string, never>;
}

/** Colander's levels are RED, AMBER, GREEN and WHITE: CLEAR is WHITE, AMBER+STRICT becomes RED (never looser). */
function colanderLevel(value: string): string {
  const level = tlpLevel(value);
  if (level === "CLEAR" || level === undefined) return "WHITE";
  return level === "AMBER+STRICT" ? "RED" : level;
}

const typeRef = (e: { type: { short_name: string; name: string } }) => ({
  short_name: e.type.short_name,
  name: e.type.name,
});

function entityJson(e: ExportEntity): Json {
  const internal = superTypeOf(e).toLowerCase();
  return {
    id: e.id,
    name: e.name.slice(0, 512),
    description: e.description || null,
    created_at: e.created_at,
    updated_at: e.updated_at,
    source_url: e.source_url || null,
    tlp: colanderLevel(e.tlp),
    pap: colanderLevel(e.pap),
    super_type: { short_name: superTypeOf(e) },
    type: typeRef(e),
    colander_internal_type: internal,
    ...(internal === "threat" ? {} : { attributes: e.attributes }),
  };
}

/** An event as a Colander Event entity (count at least 1, first seen never after last seen). */
function eventJson(ev: ExportEvent, involved: ExportEntity): Json {
  const first = ev.first_seen;
  const last = ev.last_seen < first ? first : ev.last_seen;
  return {
    id: ev.id,
    name: ev.name.slice(0, 512) || ev.type.short_name,
    description: ev.description || null,
    created_at: ev.created_at,
    updated_at: ev.updated_at,
    tlp: colanderLevel(involved.tlp),
    pap: colanderLevel(involved.pap),
    super_type: { short_name: "EVENT" },
    type: typeRef(ev),
    colander_internal_type: "event",
    attributes: ev.attributes,
    first_seen: first,
    last_seen: last,
    count: Math.max(1, Math.trunc(ev.count) || 0),
    involved_observables: superTypeOf(involved) === "OBSERVABLE" ? [involved.id] : [],
  };
}

function relationJson(
  id: string,
  name: string,
  from: string,
  to: string,
  created: string,
  attributes: Json,
): Json {
  return {
    id,
    name: name.slice(0, 512),
    created_at: created,
    updated_at: created,
    attributes,
    obj_from: from,
    obj_to: to,
  };
}

/** Entities and events; an event about something that is not an observable is tied to it by an "involves" relation. */
function addEntities(graph: ExportGraph, feed: ColanderFeed): Map<string, ExportEntity> {
  const kept = new Map<string, ExportEntity>();
  for (const e of graph.entities) {
    if (!COLANDER_SUPER_TYPES.has(superTypeOf(e)) || kept.has(e.id)) continue;
    kept.set(e.id, e);
    feed.entities[e.id] = entityJson(e);
  }
  for (const ev of graph.events) {
    const involved = kept.get(ev.involved_entity);
    if (!involved) continue;
    feed.entities[ev.id] = eventJson(ev, involved);
    if (superTypeOf(involved) === "OBSERVABLE") continue;
    const id = stableUuidV4("colander-relation", ev.id, "involves", involved.id);
    feed.relations[id] = relationJson(id, "involves", ev.id, involved.id, ev.created_at, {});
  }
  return kept;
}

export function toColanderFeed(doc: ResultDocument, _ctx: ExportContext): ColanderFeed {
  const graph = exportGraph(doc);
  const root = graph.root;
  const feed: ColanderFeed = {
    id: stableUuidV4("colander-feed", typeOf(root), root.name),
    name: `Loupe: ${root.type.name} ${root.name}`.slice(0, 512),
    description: `What Loupe knows about ${root.super_type.short_name} ${typeOf(root)} ${root.name}.`,
    entities: {},
    relations: {},
    cases: {},
  };
  const kept = addEntities(graph, feed);
  for (const r of graph.relations) {
    const [from, to] = [kept.get(r.obj_from), kept.get(r.obj_to)];
    if (!from || !to) continue;
    const entity = feed.entities[from.id]!;
    const threatLink =
      r.name === "associated threat" && superTypeOf(from) === "OBSERVABLE" && superTypeOf(to) === "THREAT";
    if (threatLink && entity.associated_threat === undefined) {
      entity.associated_threat = to.id;
      continue;
    }
    feed.relations[r.id] = relationJson(r.id, r.name, from.id, to.id, r.created_at, r.attributes);
  }
  return feed;
}
