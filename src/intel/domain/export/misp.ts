/**
 * A result document as a MISP event (the MISP core format, draft-dulaunoy-misp-core-format):
 * observables as attributes with MISP types and categories, the hashes of one file as a `file`
 * object, a domain and the addresses it resolves to as a `domain-ip` object (misp-objects
 * templates), relations from objects as object references, events as sightings, TLP and PAP as
 * tags, malware / threat actors / ATT&CK techniques as MISP's galaxy clusters (plain tags when MISP
 * knows no cluster of them). UUIDs come from content, a cluster's from MISP.
 */
import type { ResultDocument } from "../requests.ts";
import {
  type ExportContext,
  type ExportEntity,
  type ExportGraph,
  exportGraph,
  fileGroups,
  harmfulObservables,
  superTypeOf,
  typeOf,
} from "./graph.ts";
import { loupeUuid } from "./ids.ts";
import { galaxiesOf } from "./misp-galaxies.ts";
import {
  type AttributeContext,
  type MispAttribute,
  type MispObject,
  type MispTag,
  markingTags,
  mispAttribute,
  objectsOf,
  unixSeconds,
} from "./misp-objects.ts";

export interface MispEvent {
  Event: Record<string, unknown> & { Attribute: MispAttribute[]; Object: MispObject[]; Tag: MispTag[] };
}

/** Observables that are neither in a file nor in a domain-ip object: plain attributes. */
function looseAttributes(ctx: AttributeContext, inObjects: Set<string>): MispAttribute[] {
  return ctx.graph.entities
    .filter((e) => superTypeOf(e) === "OBSERVABLE" && !inObjects.has(e.id))
    .map((e) => mispAttribute(e, ctx))
    .filter((a): a is MispAttribute => a !== undefined);
}

/** For each entity, the cluster tags of the threats a relation ties it to. */
function threatTagsOf(graph: ExportGraph, clusterTags: Map<string, string>): (e: ExportEntity) => MispTag[] {
  const tags = new Map<string, Set<string>>();
  for (const r of graph.relations)
    for (const [entity, other] of [
      [r.obj_from, r.obj_to],
      [r.obj_to, r.obj_from],
    ] as const) {
      const tag = clusterTags.get(other);
      if (tag && !clusterTags.has(entity)) tags.set(entity, new Set([...(tags.get(entity) ?? []), tag]));
    }
  return (e) => [...(tags.get(e.id) ?? [])].sort().map((name) => ({ name }));
}

const latest = (times: string[]) => times.reduce((a, b) => (b > a ? b : a), "");

export function toMispEvent(doc: ResultDocument, _ctx: ExportContext): MispEvent {
  const graph = exportGraph(doc);
  const harmful = harmfulObservables(graph);
  const { galaxies, clusterTags } = galaxiesOf(graph);
  const ctx: AttributeContext = {
    graph,
    toIds: (e) => harmful.has(e.id),
    tags: threatTagsOf(graph, clusterTags),
  };
  const { objects, inObjects } = objectsOf(ctx, fileGroups(graph));
  const attributes = looseAttributes(ctx, inObjects);
  const root: ExportEntity = graph.root;
  // Every threat's tag: its galaxy cluster's, or a plain tag for one MISP knows no cluster of.
  const threatTags = [...new Set(clusterTags.values())].sort().map((name) => ({ name }));
  return {
    Event: {
      uuid: loupeUuid("misp-event", typeOf(root), root.name),
      info: `Loupe: ${root.type.name} ${root.name}`.slice(0, 256),
      date: (graph.entities.map((e) => e.created_at).sort()[0] ?? root.created_at).slice(0, 10),
      timestamp: unixSeconds(latest(graph.entities.map((e) => e.updated_at))),
      published: false,
      publish_timestamp: "0",
      // Undefined threat level, initial analysis: Loupe gathers, people judge.
      threat_level_id: "4",
      analysis: "0",
      // Your organisation only: the importer widens it if the markings allow.
      distribution: "0",
      sharing_group_id: "0",
      attribute_count: String(attributes.length + objects.reduce((n, o) => n + o.Attribute.length, 0)),
      Orgc: { name: "Loupe", uuid: loupeUuid("misp-org", "loupe") },
      Tag: [...markingTags(root.tlp, root.pap), ...vendorTags(graph), ...threatTags],
      Attribute: attributes,
      Object: objects,
      Galaxy: galaxies,
    },
  };
}

/** Where the data came from, as tags (`loupe:source="virustotal"`). */
const vendorTags = (graph: ExportGraph): MispTag[] =>
  graph.vendors.map((v) => ({ name: `loupe:source="${v}"` }));
