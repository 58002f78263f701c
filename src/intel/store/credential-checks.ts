/** The last test of each credential set: replaced by every test, forgotten with the set. */
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

export interface CredentialCheck {
  at: string;
  ok: boolean;
  message: string;
}

export async function recordCredentialCheck(
  db: Kysely<Database>,
  credentialId: number,
  check: { ok: boolean; message: string },
): Promise<CredentialCheck> {
  const row = { checked_at: nowIso(), ok: check.ok ? 1 : 0, message: check.message };
  await db
    .insertInto("credential_checks")
    .values({ credential_id: credentialId, ...row })
    .onConflict((oc) => oc.column("credential_id").doUpdateSet(row))
    .execute();
  return { at: row.checked_at, ...check };
}

/** Every set's last test, by set id (sets never tested are absent). */
export async function credentialChecks(db: Kysely<Database>): Promise<Map<number, CredentialCheck>> {
  const rows = await db.selectFrom("credential_checks").selectAll().execute();
  return new Map(
    rows.map((r) => [r.credential_id, { at: r.checked_at, ok: r.ok === 1, message: r.message }]),
  );
}

export async function forgetCredentialCheck(db: Kysely<Database>, credentialId: number): Promise<void> {
  await db.deleteFrom("credential_checks").where("credential_id", "=", credentialId).execute();
}
