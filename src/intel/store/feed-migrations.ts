/**
 * The migration adding local feed copies (feed-schema.ts). Kept beside migrations.ts rather than in
 * it so that feeds stay one change; IPv4 ranges are 64-bit integers on both databases.
 */
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists.
type AnyDb = Kysely<any>;

export const feedCopies = (dialect: "sqlite" | "postgres"): Migration => ({
  async up(db: AnyDb) {
    const number = dialect === "sqlite" ? "integer" : "bigint";
    await db.schema
      .createTable("feed_copies")
      .addColumn("id", "varchar(200)", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("etag", "text")
      .addColumn("last_modified", "text")
      .addColumn("fetched_at", "varchar(32)")
      .addColumn("checked_at", "varchar(32)")
      .addColumn("attempted_at", "varchar(32)")
      .addColumn("error", "text")
      .addColumn("entries", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("meta", "text", (c) => c.notNull().defaultTo("{}"))
      .execute();
    await db.schema
      .createTable("feed_entries")
      .addColumn("feed", "varchar(200)", (c) => c.notNull())
      .addColumn("kind", "varchar(64)", (c) => c.notNull())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("low", number)
      .addColumn("high", number)
      .addColumn("info", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("feed_entries_value").on("feed_entries").columns(["kind", "value"]).execute();
    await db.schema.createIndex("feed_entries_range").on("feed_entries").columns(["kind", "low"]).execute();
    await db.schema.createIndex("feed_entries_feed").on("feed_entries").column("feed").execute();
  },
});
