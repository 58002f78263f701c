/**
 * A result document as a STIX 2.1 bundle: an identity for Loupe and one per vendor, observables as
 * SCOs (hashes of one file as one `file`), malware / threat actors / attack patterns /
 * vulnerabilities as SDOs, relations as relationships, an indicator for each observable the graph
 * ties to a threat or a detection, events as observed-data and sightings, and TLP 2.0 / PAP
 * markings from each entity. Every id is derived from content: the same graph gives the same bundle.
 */
import type { ResultDocument } from "../requests.ts";
import {
  DETECTION_EVENTS,
  type ExportContext,
  type ExportEntity,
  type ExportEvent,
  type ExportGraph,
  exportGraph,
  fileGroups,
  strictestTlp,
  typeOf,
  vendorsOf,
} from "./graph.ts";
import { canonicalJson, loupeUuid, uuidV5 } from "./ids.ts";
import { entitySdo } from "./stix-domain.ts";
import { papMarking, type StixObject, tlpMarking } from "./stix-markings.ts";
import { fileSco, observableSco, type Sco, STIX_HASH_NAMES, scoId } from "./stix-observables.ts";

export interface StixBundle {
  type: "bundle";
  id: string;
  objects: StixObject[];
}

/** One entity (or the hashes of one file) in the bundle. */
interface Node {
  id: string;
  sco?: Sco;
  tlp: string | undefined;
  pap: string | undefined;
  entities: ExportEntity[];
}

/** When Loupe's and the vendors' identities were first described (they never change). */
const IDENTITY_TIME = "2026-01-01T00:00:00.000Z";
const LOUPE_IDENTITY = `identity--${loupeUuid("identity", "loupe")}`;
const vendorIdentity = (vendor: string) => `identity--${loupeUuid("identity", "vendor", vendor)}`;

/** A STIX timestamp (always milliseconds); `fallback` when `value` is not a date. */
function stixTime(value: string | null | undefined, fallback = IDENTITY_TIME): string {
  const ms = Date.parse(value ?? "");
  return Number.isNaN(ms) ? fallback : new Date(ms).toISOString();
}

/** The creator of something some vendors spoke of: that vendor when there is one, else Loupe. */
function creator(attributes: Record<string, string>): string {
  const vendors = vendorsOf(attributes);
  return vendors.length === 1 ? vendorIdentity(vendors[0]!) : LOUPE_IDENTITY;
}

/** Drops empty strings, empty arrays and undefined: STIX forbids empty optional properties. */
function compact<T extends Record<string, unknown>>(obj: T): T {
  const kept = Object.entries(obj).filter(
    ([, v]) => v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0),
  );
  return Object.fromEntries(kept) as T;
}

class BundleBuilder {
  readonly objects = new Map<string, StixObject>();
  readonly markings = new Map<string, StixObject>();

  add(obj: StixObject): void {
    if (!this.objects.has(obj.id)) this.objects.set(obj.id, compact(obj));
  }

  /** The marking refs for a TLP and a PAP level, adding their definitions to the bundle. */
  markingRefs(tlp: string | undefined, pap: string | undefined): string[] {
    const defs = [tlp ? tlpMarking(tlp) : undefined, pap ? papMarking(pap, LOUPE_IDENTITY) : undefined];
    const present = defs.filter((d): d is StixObject => d !== undefined);
    for (const d of present) this.markings.set(d.id, d);
    return present.map((d) => d.id);
  }

  bundle(): StixBundle {
    const objects = [...this.markings.values(), ...this.objects.values()];
    const id = `bundle--${uuidV5(loupeUuid("bundle"), canonicalJson(objects))}`;
    return { type: "bundle", id, objects };
  }
}

function addIdentities(b: BundleBuilder, graph: ExportGraph, ctx: ExportContext): void {
  const identity = (id: string, name: string, identityClass: string, description: string) =>
    b.add({
      type: "identity",
      spec_version: "2.1",
      id,
      created: IDENTITY_TIME,
      modified: IDENTITY_TIME,
      name,
      identity_class: identityClass,
      description,
    });
  identity(LOUPE_IDENTITY, "Loupe", "system", "The threat intelligence service that made this bundle.");
  for (const vendor of graph.vendors)
    identity(vendorIdentity(vendor), ctx.vendorNames[vendor] ?? vendor, "organization", `Source: ${vendor}`);
}

/** The SCO object of a node (a file's hashes, or an observable). */
function scoObject(b: BundleBuilder, node: Node & { sco: Sco }): StixObject {
  return {
    type: node.sco.type,
    spec_version: "2.1",
    id: node.id,
    ...node.sco.props,
    object_marking_refs: b.markingRefs(node.tlp, node.pap),
  };
}

function sdoObject(
  b: BundleBuilder,
  entity: ExportEntity,
  id: string,
  sdo: NonNullable<ReturnType<typeof entitySdo>>,
) {
  const created = stixTime(entity.created_at);
  const refs = (sdo.props.external_references as unknown[] | undefined) ?? [];
  const source = entity.source_url
    ? [{ source_name: vendorsOf(entity.attributes)[0] ?? "loupe", url: entity.source_url }]
    : [];
  return {
    type: sdo.type,
    spec_version: "2.1",
    id,
    created_by_ref: creator(entity.attributes),
    created,
    modified: [created, stixTime(entity.updated_at, created)].sort().at(-1),
    ...sdo.props,
    description: entity.description,
    external_references: [...refs, ...source],
    object_marking_refs: b.markingRefs(strictestTlp([entity.tlp]), strictestTlp([entity.pap])),
  };
}

/** Every entity STIX can say as a node: files (grouped hashes), other observables, SDOs. */
function addNodes(b: BundleBuilder, graph: ExportGraph): Map<string, Node> {
  const nodes = new Map<string, Node>();
  const scoNodes = new Map<string, Node>();
  for (const group of fileGroups(graph).values()) {
    const hashes = Object.fromEntries(group.map((h) => [STIX_HASH_NAMES[typeOf(h) as "MD5"], h.name]));
    const sco = fileSco(hashes);
    const node = nodeOf(scoId(sco), group, sco);
    b.add(scoObject(b, node as Node & { sco: Sco }));
    for (const h of group) nodes.set(h.id, node);
  }
  for (const entity of graph.entities) {
    if (nodes.has(entity.id)) continue;
    const sco = observableSco(entity);
    if (sco) {
      // A DOMAIN and a HOSTNAME of one name are one domain-name: one node.
      const id = scoId(sco);
      const node = scoNodes.get(id) ?? nodeOf(id, [entity], sco);
      scoNodes.set(id, node);
      b.add(scoObject(b, node as Node & { sco: Sco }));
      nodes.set(entity.id, node);
      continue;
    }
    const sdo = entitySdo(entity);
    if (!sdo) continue;
    const id = `${sdo.type}--${loupeUuid(sdo.type, entity.type.short_name, entity.name)}`;
    b.add(sdoObject(b, entity, id, sdo));
    nodes.set(entity.id, nodeOf(id, [entity]));
  }
  return nodes;
}

const nodeOf = (id: string, entities: ExportEntity[], sco?: Sco): Node => ({
  id,
  sco,
  entities,
  tlp: strictestTlp(entities.map((e) => e.tlp)),
  pap: strictestTlp(entities.map((e) => e.pap)),
});

/** Relation verbs of the graph → STIX relationship types (others: the verb in kebab case). */
const RELATIONSHIP_TYPES: Record<string, string> = {
  resolves: "resolves-to",
  "associated threat": "related-to",
  "attributed to": "attributed-to",
  "points to": "related-to",
};

const relationshipType = (verb: string) =>
  RELATIONSHIP_TYPES[verb] ??
  (verb
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "") ||
    "related-to");

function relationship(
  b: BundleBuilder,
  type: string,
  from: Node,
  to: Node,
  extra: { created?: string; attributes?: Record<string, string>; description?: string } = {},
): StixObject {
  const created = stixTime(extra.created, stixTime(to.entities[0]?.created_at));
  return {
    type: "relationship",
    spec_version: "2.1",
    id: `relationship--${loupeUuid("relationship", type, from.id, to.id)}`,
    created_by_ref: creator(extra.attributes ?? {}),
    created,
    modified: created,
    relationship_type: type,
    source_ref: from.id,
    target_ref: to.id,
    description: extra.description,
    object_marking_refs: b.markingRefs(strictestTlp([from.tlp, to.tlp]), strictestTlp([from.pap, to.pap])),
  };
}

function addRelationships(b: BundleBuilder, graph: ExportGraph, nodes: Map<string, Node>): void {
  for (const r of graph.relations) {
    const from = nodes.get(r.obj_from);
    const to = nodes.get(r.obj_to);
    if (!from || !to || from === to) continue;
    b.add(
      relationship(b, relationshipType(r.name), from, to, {
        created: r.created_at,
        attributes: r.attributes,
        description: r.description,
      }),
    );
  }
}

const THREAT_OBJECTS = new Set(["malware", "threat-actor", "attack-pattern"]);

/** Indicators for the observables tied to a threat or a detection; returns node id → indicator id. */
function addIndicators(b: BundleBuilder, graph: ExportGraph, nodes: Map<string, Node>): Map<string, string> {
  const threatsOf = new Map<Node, Node[]>();
  const objectType = (n: Node) => n.id.split("--")[0]!;
  for (const r of graph.relations) {
    const [from, to] = [nodes.get(r.obj_from), nodes.get(r.obj_to)];
    if (!from || !to) continue;
    for (const [obs, threat] of [
      [from, to],
      [to, from],
    ] as const)
      if (obs.sco && THREAT_OBJECTS.has(objectType(threat)))
        threatsOf.set(obs, [...(threatsOf.get(obs) ?? []), threat]);
  }
  for (const ev of graph.events) {
    const node = nodes.get(ev.involved_entity);
    if (node?.sco && DETECTION_EVENTS.has(ev.type.short_name) && !threatsOf.has(node))
      threatsOf.set(node, []);
  }
  const indicators = new Map<string, string>();
  for (const [node, threats] of threatsOf) {
    const indicator = indicatorObject(b, node as Node & { sco: Sco });
    b.add(indicator);
    indicators.set(node.id, indicator.id);
    const asNode: Node = { ...node, id: indicator.id };
    b.add(relationship(b, "based-on", asNode, node));
    for (const t of threats) b.add(relationship(b, "indicates", asNode, t));
  }
  return indicators;
}

function indicatorObject(b: BundleBuilder, node: Node & { sco: Sco }): StixObject {
  const first = node.entities[0]!;
  const created = stixTime(first.created_at);
  return {
    type: "indicator",
    spec_version: "2.1",
    id: `indicator--${loupeUuid("indicator", node.id)}`,
    created_by_ref: LOUPE_IDENTITY,
    created,
    modified: created,
    name: node.entities.map((e) => `${typeOf(e)}: ${e.name}`).join(", "),
    indicator_types: ["malicious-activity"],
    pattern: `[${node.sco.pattern}]`,
    pattern_type: "stix",
    pattern_version: "2.1",
    valid_from: created,
    object_marking_refs: b.markingRefs(node.tlp, node.pap),
  };
}

const clampCount = (n: number, min: number) => Math.min(999_999_999, Math.max(min, Math.trunc(n) || 0));

/** What makes an event itself (its database id differs from one store to another). */
const eventKey = (ev: ExportEvent, node: Node) =>
  canonicalJson([node.id, ev.type.short_name, ev.name, ev.first_seen, ev.attributes.source_vendor ?? ""]);

/** An event: observed-data for an observable, and a sighting of its indicator or SDO. */
function addEvent(b: BundleBuilder, ev: ExportEvent, node: Node, indicators: Map<string, string>): void {
  const created = stixTime(ev.created_at);
  const first = stixTime(ev.first_seen, created);
  const last = [first, stixTime(ev.last_seen, first)].sort().at(-1)!;
  const common = {
    spec_version: "2.1",
    created_by_ref: creator(ev.attributes),
    created,
    modified: [created, stixTime(ev.updated_at, created)].sort().at(-1),
    object_marking_refs: b.markingRefs(node.tlp, node.pap),
  };
  const observed = node.sco
    ? {
        type: "observed-data",
        id: `observed-data--${loupeUuid("observed-data", eventKey(ev, node))}`,
        ...common,
        first_observed: first,
        last_observed: last,
        number_observed: clampCount(ev.count, 1),
        object_refs: [node.id],
      }
    : undefined;
  if (observed) b.add(observed);
  const sightingOf = node.sco ? indicators.get(node.id) : node.id;
  if (!sightingOf) return;
  b.add({
    type: "sighting",
    id: `sighting--${loupeUuid("sighting", eventKey(ev, node))}`,
    ...common,
    description: `${ev.type.short_name}: ${ev.name}`,
    first_seen: first,
    last_seen: last,
    count: clampCount(ev.count, 0),
    sighting_of_ref: sightingOf,
    observed_data_refs: observed ? [observed.id] : [],
    where_sighted_refs: vendorsOf(ev.attributes).map(vendorIdentity),
  });
}

/** A report refers to what the graph says it documents (or, documenting nothing known, to Loupe). */
function fillReports(b: BundleBuilder, graph: ExportGraph, nodes: Map<string, Node>): void {
  for (const node of new Set(nodes.values())) {
    const report = b.objects.get(node.id);
    if (report?.type !== "report") continue;
    const refs = new Set<string>();
    for (const r of graph.relations) {
      const ends = [nodes.get(r.obj_from), nodes.get(r.obj_to)];
      if (!ends.includes(node)) continue;
      for (const end of ends) if (end && end !== node) refs.add(end.id);
    }
    report.object_refs = refs.size > 0 ? [...refs].sort() : [LOUPE_IDENTITY];
  }
}

export function toStixBundle(doc: ResultDocument, ctx: ExportContext): StixBundle {
  const graph = exportGraph(doc);
  const b = new BundleBuilder();
  addIdentities(b, graph, ctx);
  const nodes = addNodes(b, graph);
  addRelationships(b, graph, nodes);
  fillReports(b, graph, nodes);
  const indicators = addIndicators(b, graph, nodes);
  for (const ev of graph.events) {
    const node = nodes.get(ev.involved_entity);
    if (node) addEvent(b, ev, node, indicators);
  }
  return b.bundle();
}
