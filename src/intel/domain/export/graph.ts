/**
 * The result document seen by the exporters: every entity (root first), every event, the vendors
 * that spoke, and the hashes that name one file. Each export format is a pure function of this.
 */

import { checkValue, findType } from "../../model/taxonomy.ts";
import type { ResultDocument } from "../requests.ts";

export type ExportEntity = ResultDocument["root_entity"];
export type ExportEvent = ResultDocument["events"][number];
export type ExportRelation = ResultDocument["relations"][number];

/** What an export needs besides the document. */
export interface ExportContext {
  /** Vendor id → the vendor's name (STIX identities). */
  vendorNames: Record<string, string>;
}

export interface ExportGraph {
  root: ExportEntity;
  /** The root first, then the others in the document's order. */
  entities: ExportEntity[];
  /** The root's events and the neighbours'. */
  events: ExportEvent[];
  relations: ExportRelation[];
  /** Every vendor that answered or spoke of an entity, sorted. */
  vendors: string[];
}

export const superTypeOf = (e: ExportEntity) => e.super_type.short_name;
export const typeOf = (e: ExportEntity) => e.type.short_name;

/** The vendors an entity, event or relation came from (`source_vendor` lists them, comma-separated). */
export const vendorsOf = (attributes: Record<string, string>): string[] =>
  (attributes.source_vendor ?? "").split(",").filter(Boolean);

/**
 * Whether an observable's value is one of its type (vendors name neighbours as they like): an
 * export never carries "an IPv4" that is not one. Other entities are names, always kept.
 */
function wellFormed(e: ExportEntity): boolean {
  if (superTypeOf(e) !== "OBSERVABLE") return true;
  const type = findType(superTypeOf(e), typeOf(e));
  return type !== undefined && "value" in checkValue(type, e.name);
}

export function exportGraph(doc: ResultDocument): ExportGraph {
  const entities = [doc.root_entity, ...doc.entities.filter(wellFormed)];
  const events = [...doc.events, ...doc.neighbour_events];
  const vendors = new Set(Object.keys(doc.sources));
  for (const item of [...entities, ...events, ...doc.relations])
    for (const v of vendorsOf(item.attributes)) vendors.add(v);
  return { root: doc.root_entity, entities, events, relations: doc.relations, vendors: [...vendors].sort() };
}

/** The file hash types of the taxonomy. */
export const FILE_HASH_TYPES = ["MD5", "SHA1", "SHA256"] as const;
export type FileHashType = (typeof FILE_HASH_TYPES)[number];

export const isFileHash = (e: ExportEntity): boolean =>
  superTypeOf(e) === "OBSERVABLE" && (FILE_HASH_TYPES as readonly string[]).includes(typeOf(e));

/**
 * The hashes that name one file: hash entities joined by "same file as" relations, each group
 * under its first member's id (the root's group first). Every hash entity is in one group.
 */
export function fileGroups(graph: ExportGraph): Map<string, ExportEntity[]> {
  const hashes = graph.entities.filter(isFileHash);
  const leader = new Map(hashes.map((h) => [h.id, h.id]));
  const find = (id: string): string => {
    let at = id;
    while (leader.get(at) !== at) at = leader.get(at)!;
    return at;
  };
  for (const r of graph.relations) {
    if (r.name !== "same file as" || !leader.has(r.obj_from) || !leader.has(r.obj_to)) continue;
    const [a, b] = [find(r.obj_from), find(r.obj_to)];
    if (a !== b) leader.set(b, a);
  }
  const groups = new Map<string, ExportEntity[]>();
  for (const h of hashes) {
    const key = find(h.id);
    groups.set(key, [...(groups.get(key) ?? []), h]);
  }
  return groups;
}

/** TLP levels from the least to the most restricted (TLP 1.0's WHITE is 2.0's CLEAR). */
const TLP_ORDER = ["CLEAR", "WHITE", "GREEN", "AMBER", "AMBER+STRICT", "RED"];

/** A known TLP (or PAP) level in TLP 2.0's words (CLEAR for WHITE), or undefined. */
export function tlpLevel(value: string | null | undefined): string | undefined {
  const upper = (value ?? "")
    .trim()
    .toUpperCase()
    .replace(/^(TLP|PAP):/, "");
  if (!TLP_ORDER.includes(upper)) return undefined;
  return upper === "WHITE" ? "CLEAR" : upper;
}

/** The most restricted of some TLP levels (what a merged object must carry). */
export function strictestTlp(values: Array<string | null | undefined>): string | undefined {
  const known = values.map(tlpLevel).filter((v): v is string => v !== undefined);
  return known.sort((a, b) => TLP_ORDER.indexOf(b) - TLP_ORDER.indexOf(a))[0];
}

/** Event types that say an observable was seen doing harm. */
export const DETECTION_EVENTS = new Set([
  "AV_DETECTION",
  "HIT",
  "ALERT",
  "INFECTION",
  "COMPROMISE",
  "ATTACK",
  "TARGETED_ATTACK",
]);

/** Super types of what does harm (malware, actors, techniques). */
const THREAT_SUPER_TYPES = new Set(["THREAT", "ACTOR", "TTP"]);

/**
 * The observables the graph ties to harm: related to a threat, an actor or a technique, or the
 * subject of a detection. They become STIX indicators and MISP `to_ids` attributes.
 */
export function harmfulObservables(graph: ExportGraph): Set<string> {
  const byId = new Map(graph.entities.map((e) => [e.id, e]));
  const harmful = new Set<string>();
  for (const r of graph.relations) {
    const [from, to] = [byId.get(r.obj_from), byId.get(r.obj_to)];
    if (!from || !to) continue;
    if (superTypeOf(from) === "OBSERVABLE" && THREAT_SUPER_TYPES.has(superTypeOf(to))) harmful.add(from.id);
    if (superTypeOf(to) === "OBSERVABLE" && THREAT_SUPER_TYPES.has(superTypeOf(from))) harmful.add(to.id);
  }
  for (const ev of graph.events) {
    const involved = byId.get(ev.involved_entity);
    if (involved && superTypeOf(involved) === "OBSERVABLE" && DETECTION_EVENTS.has(ev.type.short_name))
      harmful.add(involved.id);
  }
  return harmful;
}
