/**
 * Admin panel sessions: who may sign in (an active admin with the right password), and the
 * server-side session that a signed cookie names. Throttling stays at the door (it knows the
 * address); this is the rule about accounts.
 */
import { checkPassword } from "../store/accounts.ts";
import { type AdminSession, closeSession, openSession, readSession } from "../store/sessions.ts";
import type { WithStore } from "./index.ts";

export type { AdminSession };

/** A new session for an active admin whose password matches, or undefined (whatever the reason). */
export async function signIn({ store }: WithStore, username: string, password: string, ttlMs: number) {
  const { db } = store;
  const user = await checkPassword(db, username, password);
  if (user?.is_admin !== 1) return undefined;
  return { user, ...(await openSession(db, user.id, ttlMs)) };
}

export const signOut = ({ store }: WithStore, sessionId: string): Promise<void> =>
  closeSession(store.db, sessionId);

/** The session's active admin and CSRF token, or undefined (unknown, expired, user gone or demoted). */
export const currentSession = ({ store }: WithStore, sessionId: string): Promise<AdminSession | undefined> =>
  readSession(store.db, sessionId);
