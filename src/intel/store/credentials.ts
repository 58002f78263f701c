/**
 * Vendor credentials: several sets per vendor. A set may carry its own quota; a set whose key the
 * vendor refused is flagged (`disabled_reason`, `failed_at`) and left out of rotation until
 * re-enabled.
 */
import type { Kysely } from "kysely";
import type { Credentials } from "../model/credentials.ts";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

export async function addCredentials(
  db: Kysely<Database>,
  vendor: string,
  fields: Credentials,
): Promise<number> {
  await db
    .insertInto("vendor_credentials")
    .values({
      vendor,
      fields: JSON.stringify(fields),
      created_at: nowIso(),
      last_used_at: null,
      per_minute: null,
      per_day: null,
      disabled_reason: null,
      failed_at: null,
    })
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

/** Removes set `id`; the vendor it belonged to (undefined: there was no such set). */
export async function removeCredentials(db: Kysely<Database>, id: number): Promise<string | undefined> {
  const r = await db
    .deleteFrom("vendor_credentials")
    .where("id", "=", id)
    .returning("vendor")
    .executeTakeFirst();
  return r?.vendor;
}

/** Vendors with at least one set in rotation (not refused by the vendor). */
export async function configuredVendors(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await db
    .selectFrom("vendor_credentials")
    .select("vendor")
    .where("disabled_reason", "is", null)
    .distinct()
    .execute();
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

/** The sets of a vendor in rotation (not refused), with their own quotas and last use. */
export async function setsInRotation(db: Kysely<Database>, vendor: string) {
  const rows = await db
    .selectFrom("vendor_credentials")
    .select(["id", "fields", "last_used_at", "per_minute", "per_day"])
    .where("vendor", "=", vendor)
    .where("disabled_reason", "is", null)
    .orderBy("id")
    .execute();
  return rows.map((r) => ({ ...r, fields: JSON.parse(r.fields) as Credentials }));
}

export async function markCredentialsUsed(db: Kysely<Database>, id: number): Promise<void> {
  await db.updateTable("vendor_credentials").set({ last_used_at: nowIso() }).where("id", "=", id).execute();
}

/** Takes a set out of rotation, saying why (the vendor refused its key). */
export async function disableCredentials(db: Kysely<Database>, id: number, reason: string): Promise<void> {
  await db
    .updateTable("vendor_credentials")
    .set({ disabled_reason: reason, failed_at: nowIso() })
    .where("id", "=", id)
    .execute();
}

/** Puts a set back in rotation; false when there is no such set. */
export async function enableCredentials(db: Kysely<Database>, id: number): Promise<boolean> {
  const r = await db
    .updateTable("vendor_credentials")
    .set({ disabled_reason: null, failed_at: null })
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** A set's own quota (null: the vendor's; 0: no limit); false when there is no such set. */
export async function setCredentialsQuota(
  db: Kysely<Database>,
  id: number,
  quota: { perMinute: number | null; perDay: number | null },
): Promise<boolean> {
  const r = await db
    .updateTable("vendor_credentials")
    .set({ per_minute: quota.perMinute, per_day: quota.perDay })
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
