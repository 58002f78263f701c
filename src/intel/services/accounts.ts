/**
 * Accounts: the rules about users, their passwords and API keys, in one place for the three
 * doors (API, admin panel, CLI). A deactivation or a password reset ends the user's panel sessions;
 * nobody deactivates themselves; only admins have a password (a password left empty is generated
 * and returned once); regular users use API keys.
 */

import {
  AccountError,
  authenticateKeyHash,
  createToken,
  createUser,
  findUser,
  getUser,
  listTokens,
  listUsers,
  revokeToken,
  setPassword,
  setUserActive,
  type UserRow,
} from "../store/accounts.ts";
import type { ReadView } from "../store/read-cache.ts";
import { closeUserSessions } from "../store/sessions.ts";
import { randomHex } from "../store/settings.ts";
import type { WithStore } from "./index.ts";

export type { TokenSummary, UserSummary } from "../store/accounts.ts";
export {
  USER_ORDERS,
  type UserOrder,
  wellFormedKeyHash as apiKeyHashIfWellFormed,
} from "../store/accounts.ts";
export { AccountError, type UserRow };

/**
 * The password the caller gave (checked by the account rules, even when empty), or, when none was
 * given, one made for them (then `generated` carries it, to show once).
 */
function passwordOrGenerated(given: string | undefined): { password: string; generated?: string } {
  if (given !== undefined) return { password: given };
  const made = randomHex(12)();
  return { password: made, generated: made };
}

/**
 * A password opens only the admin panel, so only admins have one: a regular user (a client such as
 * Colander, a script) uses API keys. A regular user's stored password is random and never shown —
 * nothing can sign in with it — and giving one is refused rather than silently dropped.
 */
export const NO_PASSWORD_FOR_USERS =
  "Regular users have no password: they use API keys (only admins sign in to the panel).";

export async function createAccount(
  { store }: WithStore,
  input: { username: string; password?: string; admin: boolean },
): Promise<{ user: UserRow; generatedPassword?: string }> {
  const { db } = store;
  if (!input.admin) {
    if (input.password !== undefined) throw new AccountError(NO_PASSWORD_FOR_USERS);
    return { user: await createUser(db, input.username, randomHex(32)(), false) };
  }
  const { password, generated } = passwordOrGenerated(input.password);
  const user = await createUser(db, input.username, password, input.admin);
  return { user, ...(generated ? { generatedPassword: generated } : {}) };
}

/** Turns a user on or off; off also ends their panel sessions (their keys stop at once by the auth check). */
export async function setAccountActive(
  { store }: WithStore,
  actorId: number,
  userId: number,
  active: boolean,
) {
  const { db } = store;
  if (!active && actorId === userId) throw new AccountError("You cannot deactivate yourself.");
  await setUserActive(db, userId, active);
  if (!active) await closeUserSessions(db, userId);
}

/** Sets (or generates) an admin's new password and ends their panel sessions; regular users have none. */
export async function resetPassword(
  { store }: WithStore,
  userId: number,
  given?: string,
): Promise<{ generatedPassword?: string }> {
  const { db } = store;
  const user = await getUser(db, userId);
  if (!user) throw new AccountError(`No user #${userId}.`);
  if (user.is_admin !== 1) throw new AccountError(NO_PASSWORD_FOR_USERS);
  const { password, generated } = passwordOrGenerated(given);
  await setPassword(db, userId, password);
  await closeUserSessions(db, userId);
  return generated ? { generatedPassword: generated } : {};
}

/** A new API key for a user named by username (the CLI) or id (the panel); the key is shown once. */
export async function issueApiKey({ store }: WithStore, who: { username: string } | { id: number }) {
  const { db } = store;
  const user = "id" in who ? await getUser(db, who.id) : await findUser(db, who.username);
  if (!user) throw new AccountError("id" in who ? `No user #${who.id}.` : `No user "${who.username}".`);
  return { user, ...(await createToken(db, user.id)) };
}

/** A user named by username (the CLI names users so), or an AccountError. */
async function userNamed({ store }: WithStore, username: string): Promise<UserRow> {
  const user = await findUser(store.db, username);
  if (!user) throw new AccountError(`No user "${username}".`);
  return user;
}

/** A user's API keys, newest first (prefixes only: a key is shown once, when issued). */
export async function apiKeysOf(services: WithStore, username: string) {
  return listTokens(services.store.db, (await userNamed(services, username)).id);
}

/** Revokes one of a user's API keys at once (the auth check refuses it from the next request). */
export async function revokeApiKey(services: WithStore, username: string, keyId: number): Promise<void> {
  const user = await userNamed(services, username);
  if (!(await revokeToken(services.store.db, user.id, keyId)))
    throw new AccountError(`${username} has no key #${keyId}.`);
}

/** The active user an API key belongs to (constant-time in the key), given the hash the key is counted by. */
export const authenticateApiKeyHash = ({ store }: WithStore, hash: string, view?: ReadView) =>
  authenticateKeyHash(store.db, hash, view);

export const accounts = {
  list: ({ store }: WithStore, o?: Parameters<typeof listUsers>[1]) => listUsers(store.db, o),
  get: ({ store }: WithStore, id: number) => getUser(store.db, id),
  keys: ({ store }: WithStore, userId: number) => listTokens(store.db, userId),
  revokeKey: ({ store }: WithStore, userId: number, keyId: number) => revokeToken(store.db, userId, keyId),
};
