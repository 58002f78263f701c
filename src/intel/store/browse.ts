/** Read-only queries the admin panel browses with: recent requests, entity search, one entity's surroundings. */
import { type Kysely, sql } from "kysely";
import type { Database, EntitiesTable, EventsTable, RequestsTable } from "./schema.ts";

/** A LIKE pattern for "contains `text`", case-insensitive (compare with `lower(column)`). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// ESCAPE spelled out: SQLite has no default escape character, PostgreSQL's is the backslash.
const lowerLike = (column: string, text: string) =>
  sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;

export const REQUEST_ORDERS = ["newest", "oldest", "subject", "status"] as const;
export type RequestOrder = (typeof REQUEST_ORDERS)[number];

/** Requests, newest first unless sorted otherwise, of one status and whose value contains `text` when given. */
export async function recentRequests(
  db: Kysely<Database>,
  opts: { status?: string; text?: string; sort?: RequestOrder; limit: number; offset?: number },
): Promise<RequestsTable[]> {
  let q = db.selectFrom("requests").selectAll();
  if (opts.status) q = q.where("status", "=", opts.status);
  if (opts.text) q = q.where(lowerLike("value", opts.text));
  const sort = opts.sort ?? "newest";
  if (sort === "oldest") q = q.orderBy("created_at", "asc");
  else if (sort === "subject") q = q.orderBy("value").orderBy("created_at", "desc");
  else if (sort === "status") q = q.orderBy("status").orderBy("created_at", "desc");
  else q = q.orderBy("created_at", "desc");
  return q
    .orderBy("id")
    .limit(opts.limit)
    .offset(opts.offset ?? 0)
    .execute();
}

export const ENTITY_ORDERS = ["updated", "name", "type"] as const;
export type EntityOrder = (typeof ENTITY_ORDERS)[number];

/** Entities whose name contains `text` (case-insensitive), optionally of one type, most recently updated first unless sorted otherwise. */
export async function searchEntities(
  db: Kysely<Database>,
  opts: { text: string; type?: string; sort?: EntityOrder; limit: number; offset?: number },
): Promise<EntitiesTable[]> {
  let q = db.selectFrom("entities").selectAll();
  if (opts.text) q = q.where(lowerLike("name", opts.text));
  if (opts.type) q = q.where("type", "=", opts.type);
  const sort = opts.sort ?? "updated";
  if (sort === "name") q = q.orderBy("name");
  else if (sort === "type") q = q.orderBy("super_type").orderBy("type").orderBy("name");
  else q = q.orderBy("updated_at", "desc");
  return q
    .orderBy("id")
    .limit(opts.limit)
    .offset(opts.offset ?? 0)
    .execute();
}

export interface LinkedEntity {
  relation: string;
  direction: "out" | "in";
  entity: Pick<EntitiesTable, "id" | "name" | "super_type" | "type">;
}

export interface EntityDetail {
  entity: EntitiesTable;
  links: LinkedEntity[];
  events: EventsTable[];
}

export async function entityDetail(db: Kysely<Database>, id: string): Promise<EntityDetail | undefined> {
  const entity = await db.selectFrom("entities").selectAll().where("id", "=", id).executeTakeFirst();
  if (!entity) return undefined;
  const linked = (direction: "out" | "in") => {
    const [near, far] =
      direction === "out" ? (["obj_from", "obj_to"] as const) : (["obj_to", "obj_from"] as const);
    return db
      .selectFrom("relations")
      .innerJoin("entities", "entities.id", `relations.${far}`)
      .select([
        "relations.name as relation",
        "entities.id",
        "entities.name",
        "entities.super_type",
        "entities.type",
      ])
      .where(`relations.${near}`, "=", id)
      .orderBy("relations.name")
      .orderBy("entities.name")
      .execute();
  };
  const [out, incoming, events] = await Promise.all([
    linked("out"),
    linked("in"),
    db
      .selectFrom("events")
      .selectAll()
      .where("involved_entity", "=", id)
      .orderBy("last_seen", "desc")
      .execute(),
  ]);
  const links = (direction: "out" | "in", rows: typeof out): LinkedEntity[] =>
    rows.map(({ relation, ...e }) => ({ relation, direction, entity: e }));
  return { entity, links: [...links("out", out), ...links("in", incoming)], events };
}

/** How many entities, events and relations are stored (the status page's cache sizes). */
export async function cachedCounts(db: Kysely<Database>) {
  const count = async (table: "entities" | "events" | "relations") =>
    Number((await db.selectFrom(table).select(db.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
  return {
    cached_entities: await count("entities"),
    cached_events: await count("events"),
    cached_relations: await count("relations"),
  };
}
