/**
 * The audit log's rows: who (by username, kept even if the user is later renamed or gone) did what
 * to which target, and when. Append-only: nothing in Loupe updates or deletes a row.
 */
import type { Kysely } from "kysely";
import type { AuditLogTable, Database } from "./schema.ts";
import { nowIso } from "./time.ts";

export type AuditRow = Omit<AuditLogTable, "id"> & { id: number };

export async function insertAudit(
  db: Kysely<Database>,
  entry: { actor: string; action: string; target: string; detail: string },
): Promise<void> {
  await db
    .insertInto("audit_log")
    .values({ ...entry, at: nowIso() })
    .execute();
}

/** Newest first; `offset`/`limit` page through it. */
export async function selectAudit(
  db: Kysely<Database>,
  o: { limit: number; offset: number; action?: string },
): Promise<AuditRow[]> {
  let q = db.selectFrom("audit_log").selectAll();
  if (o.action) q = q.where("action", "like", `${o.action}%`);
  return q.orderBy("id", "desc").limit(o.limit).offset(o.offset).execute();
}

export async function countAudit(db: Kysely<Database>): Promise<number> {
  const r = await db
    .selectFrom("audit_log")
    .select(db.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
