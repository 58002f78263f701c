/**
 * The knowledge graph in the database: saving a vendor's fragment (the only writer) and reading
 * a subject's neighbourhood. Entities are unique on (name, super type, type), relations on
 * (name, from, to); similar events from one vendor with overlapping days are merged.
 */
import type { Kysely, Transaction } from "kysely";
import type { EntityDraft, EntityRef, EventDraft, Fragment } from "../model/graph.ts";
import { selectInChunks } from "./chunks.ts";
import type { Database, EntitiesTable, EventsTable, RelationsTable } from "./schema.ts";
import { newId, nowIso, toSecondsIso } from "./time.ts";

type Db = Kysely<Database> | Transaction<Database>;

const refKey = (r: EntityRef) => `${r.superType}\u0000${r.type}\u0000${r.name}`;

export function parseAttributes(json: string): Record<string, string> {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === "object" ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function stringAttributes(
  attrs: Record<string, unknown> | undefined,
  vendor: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs ?? {})) if (v !== undefined && v !== null) out[k] = String(v);
  out.source_vendor = vendor;
  return out;
}

/** Inserts the entity if new, else merges its attributes; returns its id. Safe under concurrent writers. */
export async function upsertEntity(db: Db, draft: EntityDraft, vendor: string | null): Promise<string> {
  const now = nowIso();
  const attributes = vendor ? stringAttributes(draft.attributes, vendor) : { ...(draft.attributes ?? {}) };
  await db
    .insertInto("entities")
    .values({
      id: newId(),
      super_type: draft.superType,
      type: draft.type,
      name: draft.name,
      description: draft.description ?? "",
      source_url: draft.sourceUrl ?? "",
      tlp: draft.tlp ?? "WHITE",
      pap: draft.pap ?? "WHITE",
      attributes: JSON.stringify(attributes),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["name", "super_type", "type"]).doNothing())
    .execute();
  const row = await db
    .selectFrom("entities")
    .select(["id", "attributes", "description", "source_url"])
    .where("name", "=", draft.name)
    .where("super_type", "=", draft.superType)
    .where("type", "=", draft.type)
    .executeTakeFirstOrThrow();
  const existing = parseAttributes(row.attributes);
  const merged = mergeAttributes(existing, attributes);
  const description = row.description || draft.description || "";
  const sourceUrl = row.source_url || draft.sourceUrl || "";
  if (
    JSON.stringify(merged) !== row.attributes ||
    description !== row.description ||
    sourceUrl !== row.source_url
  ) {
    await db
      .updateTable("entities")
      .set({ attributes: JSON.stringify(merged), description, source_url: sourceUrl, updated_at: now })
      .where("id", "=", row.id)
      .execute();
  }
  return row.id;
}

/**
 * Sets an entity's TLP or PAP to `value` when it holds one of `weaker` (the caller's ranking): a
 * single conditional update, so concurrent askers never lower it. Whether it changed.
 */
export async function raiseMarking(
  db: Db,
  entityId: string,
  column: "tlp" | "pap",
  value: string,
  weaker: string[],
): Promise<boolean> {
  if (weaker.length === 0) return false;
  const result = await db
    .updateTable("entities")
    .set({ [column]: value, updated_at: nowIso() })
    .where("id", "=", entityId)
    .where(column, "in", weaker)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** An entity's stored TLP and PAP, as stored (`WHITE` for CLEAR), or undefined when it is unknown. */
export function entityMarks(db: Db, ref: EntityRef): Promise<{ tlp: string; pap: string } | undefined> {
  return db
    .selectFrom("entities")
    .select(["tlp", "pap"])
    .where("name", "=", ref.name)
    .where("super_type", "=", ref.superType)
    .where("type", "=", ref.type)
    .executeTakeFirst();
}

/** Sets an entity's TLP and PAP as given (an administrator's decision, lower or higher); whether it exists. */
export async function setMarks(
  db: Db,
  ref: EntityRef,
  marks: { tlp: string; pap: string },
): Promise<boolean> {
  const result = await db
    .updateTable("entities")
    .set({ tlp: marks.tlp, pap: marks.pap, updated_at: nowIso() })
    .where("name", "=", ref.name)
    .where("super_type", "=", ref.superType)
    .where("type", "=", ref.type)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Other names of a threat, comma-separated: vendors' own alias lists and their spellings (domain/threat-names.ts). */
export const ALIASES = "aliases";

/** Comma-separated lists: merging keeps every item of both (sorted, each once). */
const LIST_ATTRIBUTES = ["source_vendor", ALIASES];

/** Later values win, except lists: `source_vendor` (every vendor that spoke of the entity) and `aliases`. */
export function mergeAttributes(
  a: Record<string, string>,
  b: Record<string, string>,
): Record<string, string> {
  const out = { ...a, ...b };
  for (const key of LIST_ATTRIBUTES) {
    const items = new Set(
      [...(a[key] ?? "").split(","), ...(b[key] ?? "").split(",")].map((i) => i.trim()).filter(Boolean),
    );
    if (items.size > 0) out[key] = [...items].sort().join(",");
  }
  return Object.fromEntries(Object.entries(out).sort(([x], [y]) => x.localeCompare(y)));
}

/** Saves one vendor's fragment in one transaction; returns the root entity's id. */
export async function saveFragment(
  db: Kysely<Database>,
  root: EntityRef,
  fragment: Fragment,
  vendor: string,
): Promise<string> {
  return db.transaction().execute(async (tx) => {
    const ids = new Map<string, string>();
    const idOf = async (ref: EntityRef, draft?: EntityDraft) => {
      const key = refKey(ref);
      const known = ids.get(key);
      if (known && !draft) return known;
      const id = await upsertEntity(tx, draft ?? ref, vendor);
      ids.set(key, id);
      return id;
    };
    const rootId = await idOf(root, fragment.entities.find((e) => refKey(e) === refKey(root)) ?? root);
    for (const e of fragment.entities) await idOf(e, e);
    for (const r of fragment.relations) {
      const from = await idOf(r.from);
      const to = await idOf(r.to);
      if (from === to) continue;
      await tx
        .insertInto("relations")
        .values({
          id: newId(),
          name: r.name,
          description: r.description ?? "",
          obj_from: from,
          obj_to: to,
          attributes: JSON.stringify(stringAttributes(r.attributes, vendor)),
          created_at: nowIso(),
        })
        .onConflict((oc) => oc.columns(["name", "obj_from", "obj_to"]).doNothing())
        .execute();
    }
    for (const ev of fragment.events) await saveEvent(tx, ev, await idOf(ev.involved), vendor);
    return rootId;
  });
}

const dayOf = (iso: string) => iso.slice(0, 10);

/** Merges with a similar event (same name, entity, vendor) whose days overlap, else inserts. */
async function saveEvent(
  tx: Transaction<Database>,
  ev: EventDraft,
  involved: string,
  vendor: string,
): Promise<void> {
  let first = toSecondsIso(ev.firstSeen);
  let last = toSecondsIso(ev.lastSeen);
  if (last < first) [first, last] = [last, first];
  const count = Math.max(1, Math.round(ev.count ?? 1));
  const similar = await tx
    .selectFrom("events")
    .selectAll()
    .where("name", "=", ev.name)
    .where("type", "=", ev.type)
    .where("involved_entity", "=", involved)
    .where("vendor", "=", vendor)
    .execute();
  const overlapping = similar.find(
    (s) => dayOf(s.first_seen) <= dayOf(last) && dayOf(first) <= dayOf(s.last_seen),
  );
  const now = nowIso();
  if (overlapping) {
    if (overlapping.first_seen === first && overlapping.last_seen === last) return; // the same event seen again
    await tx
      .updateTable("events")
      .set({
        first_seen: first < overlapping.first_seen ? first : overlapping.first_seen,
        last_seen: last > overlapping.last_seen ? last : overlapping.last_seen,
        count: overlapping.count + count,
        attributes: JSON.stringify(
          mergeAttributes(parseAttributes(overlapping.attributes), stringAttributes(ev.attributes, vendor)),
        ),
        updated_at: now,
      })
      .where("id", "=", overlapping.id)
      .execute();
    return;
  }
  await tx
    .insertInto("events")
    .values({
      id: newId(),
      type: ev.type,
      name: ev.name,
      first_seen: first,
      last_seen: last,
      count,
      description: ev.description ?? "",
      attributes: JSON.stringify(stringAttributes(ev.attributes, vendor)),
      involved_entity: involved,
      vendor,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["type", "name", "first_seen", "last_seen", "involved_entity"]).doNothing(),
    )
    .execute();
}

export interface Neighbourhood {
  root: EntitiesTable;
  entities: EntitiesTable[];
  relations: RelationsTable[];
  events: EventsTable[];
  /** Entities were left out: more were within reach than the read's `maxEntities`. */
  capped?: boolean;
}

export async function findEntity(db: Kysely<Database>, ref: EntityRef): Promise<EntitiesTable | undefined> {
  return db
    .selectFrom("entities")
    .selectAll()
    .where("name", "=", ref.name)
    .where("super_type", "=", ref.superType)
    .where("type", "=", ref.type)
    .executeTakeFirst();
}

/** The relations touching any of `ids`, a slice of ids per statement (store/chunks.ts). */
function relationsTouching(db: Kysely<Database>, ids: readonly string[]): Promise<RelationsTable[]> {
  return selectInChunks(ids, (slice) =>
    db
      .selectFrom("relations")
      .selectAll()
      .where((eb) => eb.or([eb("obj_from", "in", slice), eb("obj_to", "in", slice)]))
      .orderBy("id")
      .execute(),
  );
}

/**
 * The ids within `depth` relations of the root, nearest first, at most `maxEntities` of them, and
 * the relations between those ids. Past the bound, the entities first reached win (by relation id
 * within one ring, so the same graph always keeps the same ones).
 */
async function reachable(db: Kysely<Database>, rootId: string, depth: number, maxEntities: number) {
  const seen = new Set([rootId]);
  const relations = new Map<string, RelationsTable>();
  let capped = false;
  let frontier = [rootId];
  for (let d = 0; d < depth && frontier.length > 0; d++) {
    const next: string[] = [];
    for (const r of await relationsTouching(db, frontier)) {
      for (const id of [r.obj_from, r.obj_to]) {
        if (seen.has(id)) continue;
        if (seen.size >= maxEntities) {
          capped = true;
          continue;
        }
        seen.add(id);
        next.push(id);
      }
      if (seen.has(r.obj_from) && seen.has(r.obj_to)) relations.set(r.id, r);
    }
    frontier = next;
  }
  return { ids: [...seen], relations: [...relations.values()], capped };
}

/**
 * The root, the entities within `depth` relations of it (at most `maxEntities`, the root
 * included), the relations between them, and their events.
 */
export async function readNeighbourhood(
  db: Kysely<Database>,
  rootId: string,
  depth: number,
  maxEntities = Number.POSITIVE_INFINITY,
): Promise<Neighbourhood | undefined> {
  const root = await db.selectFrom("entities").selectAll().where("id", "=", rootId).executeTakeFirst();
  if (!root) return undefined;
  const { ids, relations, capped } = await reachable(db, rootId, depth, Math.max(1, maxEntities));
  const entities = await selectInChunks(ids, (slice) =>
    db.selectFrom("entities").selectAll().where("id", "in", slice).execute(),
  );
  const events = await selectInChunks(ids, (slice) =>
    db.selectFrom("events").selectAll().where("involved_entity", "in", slice).execute(),
  );
  return { root, entities, relations, events, capped };
}
