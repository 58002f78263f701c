/**
 * Observables as MISP attributes (type and category from the core format's table) and the MISP
 * objects that group them: `file` for the hashes of one file, `domain-ip` for a domain and the
 * addresses it resolves to (misp-objects templates), with references for the objects' relations.
 */
import {
  type ExportEntity,
  type ExportEvent,
  type ExportGraph,
  strictestTlp,
  superTypeOf,
  typeOf,
  vendorsOf,
} from "./graph.ts";
import { loupeUuid } from "./ids.ts";

export interface MispTag {
  name: string;
}

export type MispAttribute = Record<string, unknown> & { uuid: string; type: string; value: string };
export type MispObject = Record<string, unknown> & { uuid: string; Attribute: MispAttribute[] };

/** Taxonomy type → MISP attribute type and category (a valid pair of the core format's table). */
const ATTRIBUTE_TYPES: Record<string, [string, string]> = {
  IPV4: ["ip-dst", "Network activity"],
  IPV6: ["ip-dst", "Network activity"],
  CIDR: ["ip-dst", "Network activity"],
  DOMAIN: ["domain", "Network activity"],
  HOSTNAME: ["hostname", "Network activity"],
  URL: ["url", "Network activity"],
  URI: ["uri", "Network activity"],
  EMAIL: ["email", "Network activity"],
  MAC: ["mac-address", "Network activity"],
  ASN: ["AS", "Network activity"],
  COMMUNITY_ID: ["community-id", "Network activity"],
  MUTEX: ["mutex", "Artifacts dropped"],
  CVE: ["vulnerability", "External analysis"],
  PHONE: ["phone-number", "Other"],
  MD5: ["md5", "Payload delivery"],
  SHA1: ["sha1", "Payload delivery"],
  SHA256: ["sha256", "Payload delivery"],
  IMPHASH: ["imphash", "Payload delivery"],
  PEHASH: ["pehash", "Payload delivery"],
};

const FINGERPRINTS: Record<number, string> = { 32: "md5", 40: "sha1", 64: "sha256" };

function attributeType(e: ExportEntity): [string, string] | undefined {
  if (superTypeOf(e) !== "OBSERVABLE") return undefined;
  if (typeOf(e) !== "SSL_CERT_F") return ATTRIBUTE_TYPES[typeOf(e)];
  const hash = FINGERPRINTS[e.name.replace(/[^0-9a-f]/gi, "").length];
  return hash ? [`x509-fingerprint-${hash}`, "Network activity"] : undefined;
}

/** Seconds since 1970 as the format writes them (a string); "0" when unknown. */
export function unixSeconds(iso: string | null | undefined): string {
  const ms = Date.parse(iso ?? "");
  return Number.isNaN(ms) ? "0" : String(Math.floor(ms / 1000));
}

/**
 * MISP's taxonomy tags for a TLP and a PAP level (`tlp:amber+strict`, `PAP:GREEN`). MISP's PAP
 * taxonomy has no AMBER+STRICT: that level is tagged `PAP:RED`, the next stricter one, never looser.
 */
export function markingTags(tlp: string | null | undefined, pap: string | null | undefined): MispTag[] {
  const tlpLevel = strictestTlp([tlp]);
  const papLevel = strictestTlp([pap]);
  const papTag = papLevel === "AMBER+STRICT" ? "RED" : papLevel;
  return [
    ...(tlpLevel ? [{ name: `tlp:${tlpLevel.toLowerCase()}` }] : []),
    ...(papTag ? [{ name: `PAP:${papTag}` }] : []),
  ];
}

/** The uuid of an entity's attribute (outside any object). */
export const attributeUuid = (e: ExportEntity) => loupeUuid("misp-attribute", typeOf(e), e.name);

/** Events about an entity as MISP sightings (one per event: when, and which vendor saw it). */
function sightings(e: ExportEntity, events: ExportEvent[]): Array<Record<string, string>> {
  return events
    .filter((ev) => ev.involved_entity === e.id)
    .map((ev) => ({
      uuid: loupeUuid("misp-sighting", typeOf(e), e.name, ev.type.short_name, ev.name, ev.first_seen),
      type: "0",
      source: vendorsOf(ev.attributes).join(",") || "loupe",
      date_sighting: unixSeconds(ev.last_seen),
    }));
}

/** First and last seen over an entity's events (ISO 8601), when it has any. */
function seen(e: ExportEntity, events: ExportEvent[]): { first_seen?: string; last_seen?: string } {
  const mine = events.filter((ev) => ev.involved_entity === e.id);
  if (mine.length === 0) return {};
  const firsts = mine.map((ev) => new Date(ev.first_seen).toISOString()).sort();
  const lasts = mine.map((ev) => new Date(ev.last_seen).toISOString()).sort();
  return { first_seen: firsts[0], last_seen: [firsts[0]!, lasts.at(-1)!].sort().at(-1) };
}

/** What attributes are made with: the graph, which ones are for detection, which galaxy tags they take. */
export interface AttributeContext {
  graph: ExportGraph;
  toIds(e: ExportEntity): boolean;
  /** Tags besides TLP and PAP (the galaxy clusters of the threats an observable is tied to). */
  tags(e: ExportEntity): MispTag[];
}

/** An entity as a MISP attribute (undefined when MISP has no type for it). */
export function mispAttribute(
  e: ExportEntity,
  ctx: AttributeContext,
  inObject?: { uuid: string; relation: string },
): MispAttribute | undefined {
  const typed = attributeType(e);
  if (!typed) return undefined;
  return {
    uuid: inObject ? loupeUuid("misp-object-attribute", inObject.uuid, typeOf(e), e.name) : attributeUuid(e),
    type: typed[0],
    category: typed[1],
    value: e.name,
    to_ids: ctx.toIds(e),
    ...(inObject ? { object_relation: inObject.relation } : {}),
    distribution: "5",
    sharing_group_id: "0",
    timestamp: unixSeconds(e.updated_at),
    comment: e.description,
    deleted: false,
    disable_correlation: false,
    ...seen(e, ctx.graph.events),
    Tag: [...markingTags(e.tlp, e.pap), ...ctx.tags(e)],
    Sighting: sightings(e, ctx.graph.events),
  };
}

interface Template {
  name: string;
  "meta-category": string;
  description: string;
  template_uuid: string;
  template_version: string;
}

const FILE: Template = {
  name: "file",
  "meta-category": "file",
  description: "File object describing a file with meta-information",
  template_uuid: "688c46fb-5edb-40a3-8273-1af7923e2215",
  template_version: "25",
};

const DOMAIN_IP: Template = {
  name: "domain-ip",
  "meta-category": "network",
  description: "A domain/hostname and IP address seen as a tuple in a specific time frame.",
  template_uuid: "43b3b146-77eb-4931-b4cc-b66c60f28734",
  template_version: "11",
};

/** A MISP object of `template` holding `members` (entity and its object relation). */
function mispObject(
  template: Template,
  members: Array<[ExportEntity, string]>,
  ctx: AttributeContext,
): MispObject {
  const uuid = loupeUuid("misp-object", template.name, ...members.map(([e]) => `${typeOf(e)}:${e.name}`));
  const attributes = members
    .map(([e, relation]) => mispAttribute(e, ctx, { uuid, relation }))
    .filter((a): a is MispAttribute => a !== undefined);
  return {
    uuid,
    ...template,
    timestamp: unixSeconds(
      members
        .map(([e]) => e.updated_at)
        .sort()
        .at(-1) ?? "",
    ),
    distribution: "5",
    sharing_group_id: "0",
    comment: "",
    deleted: false,
    ObjectReference: [],
    Attribute: attributes,
  };
}

const isDomain = (e: ExportEntity) =>
  superTypeOf(e) === "OBSERVABLE" && ["DOMAIN", "HOSTNAME"].includes(typeOf(e));
const isAddress = (e: ExportEntity) =>
  superTypeOf(e) === "OBSERVABLE" && ["IPV4", "IPV6"].includes(typeOf(e));

/** A domain and the addresses the graph says it resolves to. */
function domainIpMembers(
  graph: ExportGraph,
  byId: Map<string, ExportEntity>,
): Array<Array<[ExportEntity, string]>> {
  const out: Array<Array<[ExportEntity, string]>> = [];
  for (const domain of graph.entities.filter(isDomain)) {
    const addresses = graph.relations
      .filter((r) => r.name === "resolves" && r.obj_from === domain.id)
      .map((r) => byId.get(r.obj_to))
      .filter((e): e is ExportEntity => e !== undefined && isAddress(e));
    if (addresses.length === 0) continue;
    const relation = typeOf(domain) === "HOSTNAME" ? "hostname" : "domain";
    out.push([[domain, relation], ...addresses.map((a): [ExportEntity, string] => [a, "ip"])]);
  }
  return out;
}

/** The file and domain-ip objects, their references, and which entities they hold. */
export function objectsOf(
  ctx: AttributeContext,
  files: Map<string, ExportEntity[]>,
): { objects: MispObject[]; inObjects: Set<string> } {
  const { graph } = ctx;
  const byId = new Map(graph.entities.map((e) => [e.id, e]));
  const holder = new Map<string, MispObject>();
  const objects: MispObject[] = [];
  const add = (template: Template, members: Array<[ExportEntity, string]>, objectCtx = ctx) => {
    const object = mispObject(template, members, objectCtx);
    objects.push(object);
    for (const [e] of members) if (!holder.has(e.id)) holder.set(e.id, object);
  };
  for (const group of files.values()) {
    // The hashes name one file: what is said of one is said of the file.
    const harmfulFile = group.some((h) => ctx.toIds(h));
    const fileTags = group.flatMap((h) => ctx.tags(h));
    add(
      FILE,
      group.map((h) => [h, typeOf(h).toLowerCase()]),
      { ...ctx, toIds: () => harmfulFile, tags: () => fileTags },
    );
  }
  for (const members of domainIpMembers(graph, byId)) add(DOMAIN_IP, members);
  addReferences(graph, holder, byId);
  return { objects, inObjects: new Set(holder.keys()) };
}

/** Relation verbs → MISP relationship types (others: the verb in kebab case). */
const RELATIONSHIP_TYPES: Record<string, string> = {
  resolves: "resolves-to",
  "associated threat": "related-to",
  "same file as": "same-as",
};

function addReferences(
  graph: ExportGraph,
  holder: Map<string, MispObject>,
  byId: Map<string, ExportEntity>,
): void {
  for (const r of graph.relations) {
    const source = holder.get(r.obj_from);
    const target = byId.get(r.obj_to);
    if (!source || !target) continue;
    const targetObject = holder.get(target.id);
    if (targetObject === source) continue;
    const referenced = targetObject?.uuid ?? (attributeType(target) ? attributeUuid(target) : undefined);
    if (!referenced) continue;
    const type = RELATIONSHIP_TYPES[r.name] ?? r.name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    (source.ObjectReference as unknown[]).push({
      uuid: loupeUuid("misp-reference", source.uuid, type, referenced),
      object_uuid: source.uuid,
      referenced_uuid: referenced,
      relationship_type: type,
      timestamp: unixSeconds(r.created_at),
      comment: r.description,
      deleted: false,
    });
  }
}
