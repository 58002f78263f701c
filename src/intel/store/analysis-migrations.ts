/**
 * The migration adding files analyses (analysis-schema.ts). Kept beside migrations.ts rather than
 * in it so that analyses stay one change; node hashes are indexed for the history's search.
 */
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists.
type AnyDb = Kysely<any>;

async function createAnalyses(db: AnyDb, dialect: "sqlite" | "postgres"): Promise<void> {
  await db.schema
    .createTable("analyses")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("user_id", "integer", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("sha256", "varchar(64)", (c) => c.notNull())
    .addColumn("sha1", "varchar(40)", (c) => c.notNull())
    .addColumn("md5", "varchar(32)", (c) => c.notNull())
    .addColumn("size", dialect === "sqlite" ? "integer" : "bigint", (c) => c.notNull())
    .addColumn("rules_key", "varchar(64)", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("tlp", "varchar(16)", (c) => c.notNull())
    .addColumn("pap", "varchar(16)", (c) => c.notNull())
    .addColumn("verdict", "varchar(16)")
    .addColumn("result", "text")
    .addColumn("cached_from", "varchar(36)")
    .addColumn("shared", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .addColumn("finished_at", "varchar(32)")
    .addColumn("lease_until", "varchar(32)")
    .addColumn("file_path", "text")
    .execute();
  await db.schema.createIndex("analyses_created").on("analyses").column("created_at").execute();
  await db.schema.createIndex("analyses_user").on("analyses").columns(["user_id", "created_at"]).execute();
  await db.schema
    .createIndex("analyses_cache")
    .on("analyses")
    .columns(["sha256", "rules_key", "status", "finished_at"])
    .execute();
  await db.schema.createIndex("analyses_status").on("analyses").columns(["status", "lease_until"]).execute();
}

async function createNodesAndIndicators(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("analysis_nodes")
    .addColumn("analysis_id", "varchar(36)", (c) => c.notNull())
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("sha256", "varchar(64)")
    .addColumn("sha1", "varchar(40)")
    .addColumn("md5", "varchar(32)")
    .execute();
  for (const column of ["analysis_id", "sha256", "sha1", "md5"])
    await db.schema.createIndex(`analysis_nodes_${column}`).on("analysis_nodes").column(column).execute();
  await db.schema
    .createTable("analysis_indicators")
    .addColumn("analysis_id", "varchar(36)", (c) => c.notNull())
    .addColumn("super_type", "varchar(64)", (c) => c.notNull())
    .addColumn("type", "varchar(64)", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("paths", "text", (c) => c.notNull())
    .addColumn("request_id", "varchar(36)")
    .addColumn("error", "text")
    .addColumn("asked_at", "varchar(32)", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("analysis_indicators_analysis")
    .on("analysis_indicators")
    .column("analysis_id")
    .execute();
}

export const analyses = (dialect: "sqlite" | "postgres"): Migration => ({
  async up(db: AnyDb) {
    await createAnalyses(db, dialect);
    await createNodesAndIndicators(db);
  },
});

/** A small PNG per analysis of an image (INTEL_ANALYSIS_THUMBNAIL_*), apart from the rows the history lists. */
export const analysisThumbnails = (dialect: "sqlite" | "postgres"): Migration => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable("analysis_thumbnails")
      .addColumn("analysis_id", "varchar(36)", (c) => c.primaryKey())
      .addColumn("png", dialect === "sqlite" ? "blob" : "bytea", (c) => c.notNull())
      .execute();
  },
});
