/**
 * Users and API keys. Passwords are hashed with scrypt; API keys are random, shown once, and
 * stored as their SHA-256 with a short prefix kept for display. Looking a key up by its hash and
 * comparing the hashes with timingSafeEqual keeps the check constant-time in the key's content.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { type Kysely, sql } from "kysely";
import { containsPattern } from "./browse.ts";
import { DIRECT_READS, type ReadView } from "./read-cache.ts";
import type { Database } from "./schema.ts";
import { nowIso } from "./time.ts";

const scryptAsync = promisify(scrypt) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64")}$${hash.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scryptAsync(password, Buffer.from(salt, "base64"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

export interface UserRow {
  id: number;
  username: string;
  is_admin: number;
  is_active: number;
  created_at: string;
}

export class AccountError extends Error {}

/** The public columns of a user, whatever else the query selected (hashes stay behind). */
const userRow = (row: UserRow): UserRow => ({
  id: row.id,
  username: row.username,
  is_admin: row.is_admin,
  is_active: row.is_active,
  created_at: row.created_at,
});

export async function createUser(
  db: Kysely<Database>,
  username: string,
  password: string,
  isAdmin: boolean,
): Promise<UserRow> {
  if (!/^[\w.@+-]{1,150}$/.test(username)) {
    throw new AccountError("A username has 1 to 150 letters, digits or . @ + - _ characters.");
  }
  if (password.length < 8) throw new AccountError("A password has at least 8 characters.");
  const existing = await db
    .selectFrom("users")
    .select("id")
    .where("username", "=", username)
    .executeTakeFirst();
  if (existing) throw new AccountError(`The user "${username}" already exists.`);
  await db
    .insertInto("users")
    .values({
      username,
      password_hash: await hashPassword(password),
      is_admin: isAdmin ? 1 : 0,
      is_active: 1,
      created_at: nowIso(),
    })
    .execute();
  return db
    .selectFrom("users")
    .select(["id", "username", "is_admin", "is_active", "created_at"])
    .where("username", "=", username)
    .executeTakeFirstOrThrow();
}

export async function findUser(db: Kysely<Database>, username: string) {
  return db.selectFrom("users").selectAll().where("username", "=", username).executeTakeFirst();
}

export const tokenHash = (key: string) => createHash("sha256").update(key).digest("hex");

/** Makes a new API key for the user; the key itself is returned once and never stored. */
export async function createToken(
  db: Kysely<Database>,
  userId: number,
): Promise<{ key: string; prefix: string }> {
  const key = randomBytes(20).toString("hex");
  const prefix = key.slice(0, 8);
  await db
    .insertInto("tokens")
    .values({
      user_id: userId,
      prefix,
      hash: tokenHash(key),
      created_at: nowIso(),
      last_used_at: null,
      revoked: 0,
    })
    .execute();
  return { key, prefix };
}

/** The key's row with its user's, while the key is not revoked. */
function activeTokenRow(db: Kysely<Database>, hash: string) {
  return db
    .selectFrom("tokens")
    .innerJoin("users", "users.id", "tokens.user_id")
    .select([
      "tokens.id as token_id",
      "tokens.hash",
      "tokens.last_used_at",
      "users.id",
      "users.username",
      "users.is_admin",
      "users.is_active",
      "users.created_at",
    ])
    .where("tokens.hash", "=", hash)
    .where("tokens.revoked", "=", 0)
    .executeTakeFirst();
}

/**
 * The active user owning this key, or undefined. Through a cached `view` (read-cache.ts) the key's
 * row is read again as soon as anything was committed: a revocation or a deactivation is seen by
 * the next request, in every process.
 */
export function authenticateKey(
  db: Kysely<Database>,
  key: string,
  view: ReadView = DIRECT_READS,
): Promise<UserRow | undefined> {
  const hash = wellFormedKeyHash(key);
  return hash ? authenticateKeyHash(db, hash, view) : Promise.resolve(undefined);
}

/** A key's hash, or undefined when it is not a key (40 hex digits): nothing is read for it. */
export const wellFormedKeyHash = (key: string): string | undefined =>
  /^[0-9a-f]{40}$/.test(key) ? tokenHash(key) : undefined;

/** `authenticateKey` given the key's hash: the API's check hashes each request's key once. */
export async function authenticateKeyHash(
  db: Kysely<Database>,
  hash: string,
  view: ReadView = DIRECT_READS,
): Promise<UserRow | undefined> {
  const row = await view.read(`token:${hash}`, () => activeTokenRow(db, hash));
  if (!row || !timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash)) || row.is_active !== 1)
    return undefined;
  // Recording every use would turn each read into a write; once a minute is enough to show activity.
  if (!row.last_used_at || Date.now() - Date.parse(row.last_used_at) > 60_000) {
    await db.updateTable("tokens").set({ last_used_at: nowIso() }).where("id", "=", row.token_id).execute();
  }
  return userRow(row);
}

export interface UserSummary extends UserRow {
  active_tokens: number;
}

export const USER_ORDERS = ["name", "newest", "role"] as const;
export type UserOrder = (typeof USER_ORDERS)[number];

/** Users with their active key counts: by username unless sorted otherwise, a page of them when `limit` is given. */
export async function listUsers(
  db: Kysely<Database>,
  o: { text?: string; sort?: UserOrder; limit?: number; offset?: number } = {},
): Promise<UserSummary[]> {
  let q = db
    .selectFrom("users")
    .leftJoin("tokens", (join) => join.onRef("tokens.user_id", "=", "users.id").on("tokens.revoked", "=", 0))
    .select([
      "users.id",
      "users.username",
      "users.is_admin",
      "users.is_active",
      "users.created_at",
      (eb) => eb.fn.count<number>("tokens.id").as("active_tokens"),
    ])
    .groupBy(["users.id", "users.username", "users.is_admin", "users.is_active", "users.created_at"]);
  // ESCAPE spelled out: SQLite has no default escape character, PostgreSQL's is the backslash.
  if (o.text) q = q.where(sql<boolean>`lower(users.username) like ${containsPattern(o.text)} escape '\\'`);
  if (o.sort === "newest") q = q.orderBy("users.created_at", "desc");
  else if (o.sort === "role") q = q.orderBy("users.is_admin", "desc");
  q = q.orderBy("users.username");
  if (o.limit !== undefined) q = q.limit(o.limit).offset(o.offset ?? 0);
  return (await q.execute()).map((r) => ({ ...r, active_tokens: Number(r.active_tokens) }));
}

export async function getUser(db: Kysely<Database>, id: number): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .select(["id", "username", "is_admin", "is_active", "created_at"])
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function setUserActive(db: Kysely<Database>, id: number, active: boolean): Promise<void> {
  await db
    .updateTable("users")
    .set({ is_active: active ? 1 : 0 })
    .where("id", "=", id)
    .execute();
}

export async function setPassword(db: Kysely<Database>, id: number, password: string): Promise<void> {
  if (password.length < 8) throw new AccountError("A password has at least 8 characters.");
  await db
    .updateTable("users")
    .set({ password_hash: await hashPassword(password) })
    .where("id", "=", id)
    .execute();
}

/** The active user with this username and password, or undefined; the hash is computed either way. */
export async function checkPassword(
  db: Kysely<Database>,
  username: string,
  password: string,
): Promise<UserRow | undefined> {
  const row = await findUser(db, username);
  // An unknown user costs the same scrypt as a known one: timing does not tell which usernames exist.
  const ok = await verifyPassword(password, row?.password_hash ?? UNKNOWN_USER_HASH);
  if (!row || !ok || row.is_active !== 1) return undefined;
  return userRow(row);
}

const UNKNOWN_USER_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${randomBytes(16).toString("base64")}$${randomBytes(32).toString("base64")}`;

export interface TokenSummary {
  id: number;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked: number;
}

export async function listTokens(db: Kysely<Database>, userId: number): Promise<TokenSummary[]> {
  return db
    .selectFrom("tokens")
    .select(["id", "prefix", "created_at", "last_used_at", "revoked"])
    .where("user_id", "=", userId)
    .orderBy("id", "desc")
    .execute();
}

/** Revokes one of the user's keys; false when the user has no such key. */
export async function revokeToken(db: Kysely<Database>, userId: number, tokenId: number): Promise<boolean> {
  const r = await db
    .updateTable("tokens")
    .set({ revoked: 1 })
    .where("id", "=", tokenId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
