/** Values made once and kept (the admin panel path, the session secret). */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

export async function getOrCreateSetting(
  db: Kysely<Database>,
  key: string,
  make: () => string,
): Promise<string> {
  const existing = await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
  if (existing) return existing.value;
  await db
    .insertInto("settings")
    .values({ key, value: make() })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  return (await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirstOrThrow())
    .value;
}

export const randomHex = (bytes: number) => () => randomBytes(bytes).toString("hex");
