/** Vendor credentials: several sets per vendor, used least-recently-used first (rotation). */
import type { Kysely } from "kysely";
import type { Credentials } from "../connectors/types.ts";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

export async function addCredentials(
  db: Kysely<Database>,
  vendor: string,
  fields: Credentials,
): Promise<number> {
  await db
    .insertInto("vendor_credentials")
    .values({ vendor, fields: JSON.stringify(fields), created_at: nowIso(), last_used_at: null })
    .execute();
  const row = await db
    .selectFrom("vendor_credentials")
    .select("id")
    .where("vendor", "=", vendor)
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function listCredentials(db: Kysely<Database>, vendor?: string) {
  let q = db.selectFrom("vendor_credentials").selectAll().orderBy("vendor").orderBy("id");
  if (vendor) q = q.where("vendor", "=", vendor);
  return (await q.execute()).map((r) => ({ ...r, fields: JSON.parse(r.fields) as Credentials }));
}

export async function removeCredentials(db: Kysely<Database>, id: number): Promise<boolean> {
  const r = await db.deleteFrom("vendor_credentials").where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function configuredVendors(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await db.selectFrom("vendor_credentials").select("vendor").distinct().execute();
  return new Set(rows.map((r) => r.vendor));
}

/** How many credential sets each vendor has (vendors without any are absent). */
export async function credentialCounts(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("vendor_credentials")
    .select(["vendor", db.fn.countAll<number>().as("n")])
    .groupBy("vendor")
    .execute();
  return new Map(rows.map((r) => [r.vendor, Number(r.n)]));
}

/** Takes the set used longest ago (never used first) and marks it used now. */
export async function takeCredentials(
  db: Kysely<Database>,
  vendor: string,
): Promise<Credentials | undefined> {
  const rows = await db.selectFrom("vendor_credentials").selectAll().where("vendor", "=", vendor).execute();
  if (rows.length === 0) return undefined;
  rows.sort((a, b) => (a.last_used_at ?? "").localeCompare(b.last_used_at ?? "") || a.id - b.id);
  const pick = rows[0]!;
  await db
    .updateTable("vendor_credentials")
    .set({ last_used_at: nowIso() })
    .where("id", "=", pick.id)
    .execute();
  return JSON.parse(pick.fields) as Credentials;
}
