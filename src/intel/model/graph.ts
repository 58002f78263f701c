/**
 * The graph model, intel's ground floor: a subject, the entities, relations and events a vendor's
 * answer becomes (a `Fragment`), and their natural keys. Every layer speaks it; it imports nothing.
 */
/** What a request asks about: super type and type short names of the taxonomy, and the value. */
export interface Subject {
  superType: string; // e.g. "OBSERVABLE"
  type: string; // e.g. "IPV4"
  value: string;
}

export type Tlp = "RED" | "AMBER" | "GREEN" | "WHITE";

/** The natural key of an entity: unique on (superType, type, name). */
export interface EntityRef {
  superType: string;
  type: string;
  name: string;
}

export interface EntityDraft extends EntityRef {
  description?: string;
  sourceUrl?: string;
  tlp?: Tlp;
  pap?: Tlp;
  /** String→string facts; the framework adds `source_vendor`. */
  attributes?: Record<string, string>;
}

export interface RelationDraft {
  /** A verb: "resolves", "points to", "documents", "associated threat"… */
  name: string;
  from: EntityRef;
  to: EntityRef;
  description?: string;
  attributes?: Record<string, string>;
}

export interface EventDraft {
  /** A type short name of the EVENT super type: HIT, AV_DETECTION, PASSIVE_DNS… */
  type: string;
  name: string;
  /** ISO 8601; stored with seconds precision. */
  firstSeen: string;
  lastSeen: string;
  count?: number;
  description?: string;
  attributes?: Record<string, string>;
  involved: EntityRef;
}

/** What one vendor says about a subject. The subject itself is the root entity (its ref is `rootRef`). */
export interface Fragment {
  entities: EntityDraft[];
  relations: RelationDraft[];
  events: EventDraft[];
}

export const emptyFragment = (): Fragment => ({ entities: [], relations: [], events: [] });

export function rootRef(subject: Subject): EntityRef {
  return { superType: subject.superType, type: subject.type, name: subject.value };
}

/** A super type and type short names of the taxonomy, without a value. */
export interface TypeRef {
  superType: string;
  type: string;
}
