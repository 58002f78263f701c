/**
 * Admin panel sessions, kept server-side: the cookie carries a random id, the database its hash,
 * the user and the session's CSRF token. Logout, deactivation or a password reset end them.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { UserRow } from "./accounts.ts";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

const hashId = (id: string) => createHash("sha256").update(id).digest("hex");

export interface AdminSession {
  user: UserRow;
  csrf: string;
}

export async function openSession(
  db: Kysely<Database>,
  userId: number,
  ttlMs: number,
): Promise<{ id: string; csrf: string }> {
  const id = randomBytes(32).toString("base64url");
  const csrf = randomBytes(24).toString("base64url");
  const now = new Date();
  await db
    .insertInto("admin_sessions")
    .values({
      id_hash: hashId(id),
      user_id: userId,
      csrf,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ttlMs).toISOString(),
    })
    .execute();
  // Expired sessions are swept on every login: the table stays as small as the active sessions.
  await db.deleteFrom("admin_sessions").where("expires_at", "<", now.toISOString()).execute();
  return { id, csrf };
}

/** The session's active admin user and CSRF token, or undefined (unknown, expired, user gone or demoted). */
export async function readSession(db: Kysely<Database>, id: string): Promise<AdminSession | undefined> {
  const row = await db
    .selectFrom("admin_sessions")
    .innerJoin("users", "users.id", "admin_sessions.user_id")
    .select([
      "admin_sessions.csrf",
      "admin_sessions.expires_at",
      "users.id",
      "users.username",
      "users.is_admin",
      "users.is_active",
      "users.created_at",
    ])
    .where("admin_sessions.id_hash", "=", hashId(id))
    .executeTakeFirst();
  if (!row || row.expires_at < nowIso() || row.is_active !== 1 || row.is_admin !== 1) return undefined;
  const { csrf, expires_at: _, ...user } = row;
  return { user, csrf };
}

export async function closeSession(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom("admin_sessions").where("id_hash", "=", hashId(id)).execute();
}

export async function closeUserSessions(db: Kysely<Database>, userId: number): Promise<void> {
  await db.deleteFrom("admin_sessions").where("user_id", "=", userId).execute();
}
