/**
 * Which entity a folded threat name stands for (the fold is domain/threat-names.ts's): the first
 * spelling recorded wins, under a unique key, so concurrent workers agree on one entity.
 */
import type { Kysely } from "kysely";
import type { EntityRef } from "../model/graph.ts";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

export async function canonicalThreat(
  db: Kysely<Database>,
  folded: string,
  proposed: EntityRef,
): Promise<EntityRef> {
  await db
    .insertInto("threat_names")
    .values({
      folded,
      super_type: proposed.superType,
      type: proposed.type,
      name: proposed.name,
      created_at: nowIso(),
    })
    .onConflict((oc) => oc.column("folded").doNothing())
    .execute();
  const row = await db
    .selectFrom("threat_names")
    .select(["super_type", "type", "name"])
    .where("folded", "=", folded)
    .executeTakeFirstOrThrow();
  return { superType: row.super_type, type: row.type, name: row.name };
}
