/** Schema migrations (portable Kysely schema builder) and the idempotent taxonomy seed. */
import { type CreateTableBuilder, type Kysely, sql } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import { analyses, analysisThumbnails } from "./analysis-migrations.ts";
import { feedCopies } from "./feed-migrations.ts";
import type { Database } from "./schema.ts";

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists.
type AnyDb = Kysely<any>;

/** An auto-incrementing integer key, spelled the way each database wants it. */
function withId(dialect: "sqlite" | "postgres") {
  return <T extends string>(t: CreateTableBuilder<T, never>): CreateTableBuilder<T, "id"> =>
    dialect === "sqlite"
      ? t.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      : t.addColumn("id", "serial", (c) => c.primaryKey());
}

/** The entity types (seeded from the taxonomy at every start). */
async function createTaxonomyTables(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("super_types")
    .addColumn("short_name", "varchar(64)", (c) => c.primaryKey())
    .addColumn("name", "varchar(255)", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("types")
    .addColumn("super_type", "varchar(64)", (c) => c.notNull())
    .addColumn("short_name", "varchar(64)", (c) => c.notNull())
    .addColumn("name", "varchar(255)", (c) => c.notNull())
    .addColumn("nf_icon", "varchar(255)", (c) => c.notNull())
    .addPrimaryKeyConstraint("types_pk", ["super_type", "short_name"])
    .execute();
}

/** Entities, relations and events: the knowledge graph. */
async function createGraphTables(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("entities")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("super_type", "varchar(64)", (c) => c.notNull())
    .addColumn("type", "varchar(64)", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("source_url", "text", (c) => c.notNull())
    .addColumn("tlp", "varchar(8)", (c) => c.notNull())
    .addColumn("pap", "varchar(8)", (c) => c.notNull())
    .addColumn("attributes", "text", (c) => c.notNull())
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .addColumn("updated_at", "varchar(32)", (c) => c.notNull())
    .addUniqueConstraint("entities_natural_key", ["name", "super_type", "type"])
    .execute();
  await db.schema
    .createTable("relations")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("name", "varchar(255)", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("obj_from", "varchar(36)", (c) => c.notNull())
    .addColumn("obj_to", "varchar(36)", (c) => c.notNull())
    .addColumn("attributes", "text", (c) => c.notNull())
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .addUniqueConstraint("relations_natural_key", ["name", "obj_from", "obj_to"])
    .execute();
  await db.schema.createIndex("relations_to").on("relations").column("obj_to").execute();
  await db.schema
    .createTable("events")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("type", "varchar(64)", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("first_seen", "varchar(32)", (c) => c.notNull())
    .addColumn("last_seen", "varchar(32)", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("attributes", "text", (c) => c.notNull())
    .addColumn("involved_entity", "varchar(36)", (c) => c.notNull())
    .addColumn("vendor", "varchar(64)", (c) => c.notNull())
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .addColumn("updated_at", "varchar(32)", (c) => c.notNull())
    .addUniqueConstraint("events_natural_key", ["type", "name", "first_seen", "last_seen", "involved_entity"])
    .execute();
  await db.schema.createIndex("events_entity").on("events").column("involved_entity").execute();
}

/** Requests and each subject's latest finished one. */
async function createRequestTables(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("requests")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("super_type", "varchar(64)", (c) => c.notNull())
    .addColumn("type", "varchar(64)", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("subject_key", "text", (c) => c.notNull())
    .addColumn("force", "integer", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("vendors", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .addColumn("started_at", "varchar(32)")
    .addColumn("finished_at", "varchar(32)")
    .execute();
  await db.schema
    .createIndex("requests_subject_status")
    .on("requests")
    .columns(["subject_key", "status"])
    .execute();
  await db.schema
    .createTable("lookups")
    .addColumn("subject_key", "varchar(2200)", (c) => c.primaryKey())
    .addColumn("root_entity", "varchar(36)")
    .addColumn("request_id", "varchar(36)", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("finished_at", "varchar(32)", (c) => c.notNull())
    .execute();
}

/** Users, API keys, vendor credentials, settings and the jobs table. */
async function createAccountAndQueueTables(db: AnyDb, dialect: "sqlite" | "postgres"): Promise<void> {
  const id = withId(dialect);
  await db.schema
    .createTable("users")
    .$call(id)
    .addColumn("username", "varchar(150)", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("is_admin", "integer", (c) => c.notNull())
    .addColumn("is_active", "integer", (c) => c.notNull())
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("tokens")
    .$call(id)
    .addColumn("user_id", "integer", (c) => c.notNull())
    .addColumn("prefix", "varchar(16)", (c) => c.notNull())
    .addColumn("hash", "varchar(64)", (c) => c.notNull().unique())
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .addColumn("last_used_at", "varchar(32)")
    .addColumn("revoked", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("vendor_credentials")
    .$call(id)
    .addColumn("vendor", "varchar(64)", (c) => c.notNull())
    .addColumn("fields", "text", (c) => c.notNull())
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .addColumn("last_used_at", "varchar(32)")
    .execute();
  await db.schema
    .createTable("settings")
    .addColumn("key", "varchar(64)", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("jobs")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("request_id", "varchar(36)", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("lease_until", "varchar(32)")
    .addColumn("worker", "varchar(64)")
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_status").on("jobs").columns(["status", "lease_until"]).execute();
}

const initial = (dialect: "sqlite" | "postgres"): Migration => ({
  async up(db: AnyDb) {
    await createTaxonomyTables(db);
    await createGraphTables(db);
    await createRequestTables(db);
    await createAccountAndQueueTables(db, dialect);
  },
});

/** Admin panel sessions (server-side, so logout and deactivation end them at once). */
const adminSessions: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("admin_sessions")
      .addColumn("id_hash", "varchar(64)", (c) => c.primaryKey())
      .addColumn("user_id", "integer", (c) => c.notNull())
      .addColumn("csrf", "varchar(64)", (c) => c.notNull())
      .addColumn("created_at", "varchar(32)", (c) => c.notNull())
      .addColumn("expires_at", "varchar(32)", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("admin_sessions_user").on("admin_sessions").column("user_id").execute();
    await db.schema.createIndex("requests_created").on("requests").column("created_at").execute();
  },
};

/** When each subject was last asked about, for retention; filled from the lookups already done. */
const subjectAsks: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("subject_asks")
      .addColumn("subject_key", "varchar(2200)", (c) => c.primaryKey())
      .addColumn("asked_at", "varchar(32)", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("subject_asks_asked").on("subject_asks").column("asked_at").execute();
    await sql`insert into subject_asks (subject_key, asked_at)
      select subject_key, max(created_at) from requests group by subject_key`.execute(db);
  },
};

/** The admin panel's audit log: append-only, newest read first. */
const auditLog = (dialect: "sqlite" | "postgres"): Migration => ({
  async up(db: AnyDb) {
    await withId(dialect)(db.schema.createTable("audit_log"))
      .addColumn("at", "varchar(32)", (c) => c.notNull())
      .addColumn("actor", "varchar(150)", (c) => c.notNull())
      .addColumn("action", "varchar(64)", (c) => c.notNull())
      .addColumn("target", "varchar(2200)", (c) => c.notNull())
      .addColumn("detail", "text", (c) => c.notNull())
      .execute();
  },
});

/**
 * Vendor quotas shared by every process: one row per call made (kept a day), one row per
 * (vendor, credential set) that serialises reservations and holds a vendor's Retry-After block,
 * and per-set quotas and the refused-key flag on credential sets.
 */
const quotas = (dialect: "sqlite" | "postgres"): Migration => ({
  async up(db: AnyDb) {
    await withId(dialect)(db.schema.createTable("quota_calls"))
      .addColumn("vendor", "varchar(64)", (c) => c.notNull())
      .addColumn("credential_set", "integer", (c) => c.notNull())
      .addColumn("reserved_at", "varchar(32)", (c) => c.notNull())
      .addColumn("counts_until", "varchar(32)", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("quota_calls_set")
      .on("quota_calls")
      .columns(["vendor", "credential_set", "reserved_at"])
      .execute();
    await db.schema
      .createTable("quota_state")
      .addColumn("vendor", "varchar(64)", (c) => c.notNull())
      .addColumn("credential_set", "integer", (c) => c.notNull())
      .addColumn("blocked_until", "varchar(32)")
      .addColumn("blocked_reason", "text")
      .addPrimaryKeyConstraint("quota_state_pk", ["vendor", "credential_set"])
      .execute();
    for (const [column, type] of [
      ["per_minute", "integer"],
      ["per_day", "integer"],
      ["disabled_reason", "text"],
      ["failed_at", "varchar(32)"],
    ] as const)
      await db.schema.alterTable("vendor_credentials").addColumn(column, type).execute();
  },
});

/**
 * Bulk asks and webhooks: batches and their items (each item points at the request that answers
 * it), a priority on jobs (0 interactive before 1 bulk), webhooks per API key, the requests each
 * webhook waits for, and the durable delivery log.
 */
const bulkHooks: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable("jobs")
      .addColumn("priority", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex("jobs_request").on("jobs").column("request_id").execute();
    await db.schema.createIndex("jobs_order").on("jobs").columns(["priority", "created_at"]).execute();
    await db.schema
      .createTable("batches")
      .addColumn("id", "varchar(36)", (c) => c.primaryKey())
      .addColumn("token_hash", "varchar(64)", (c) => c.notNull())
      .addColumn("depth", "integer", (c) => c.notNull())
      .addColumn("total", "integer", (c) => c.notNull())
      .addColumn("rejected", "text", (c) => c.notNull())
      .addColumn("created_at", "varchar(32)", (c) => c.notNull())
      .addColumn("finished_at", "varchar(32)")
      .execute();
    await db.schema
      .createTable("batch_items")
      .addColumn("batch_id", "varchar(36)", (c) => c.notNull())
      .addColumn("idx", "integer", (c) => c.notNull())
      .addColumn("request_id", "varchar(36)", (c) => c.notNull())
      .addColumn("super_type", "varchar(64)", (c) => c.notNull())
      .addColumn("type", "varchar(64)", (c) => c.notNull())
      .addColumn("value", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("batch_items_pk", ["batch_id", "idx"])
      .execute();
    await db.schema.createIndex("batch_items_request").on("batch_items").column("request_id").execute();
    await createWebhookTables(db);
  },
};

async function createWebhookTables(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("webhooks")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("token_hash", "varchar(64)", (c) => c.notNull().unique())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("secret", "varchar(128)", (c) => c.notNull())
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("webhook_watches")
    .addColumn("request_id", "varchar(36)", (c) => c.notNull())
    .addColumn("webhook_id", "varchar(36)", (c) => c.notNull())
    .addPrimaryKeyConstraint("webhook_watches_pk", ["request_id", "webhook_id"])
    .execute();
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("webhook_id", "varchar(36)", (c) => c.notNull())
    .addColumn("event", "varchar(32)", (c) => c.notNull())
    .addColumn("target_id", "varchar(36)", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "varchar(32)", (c) => c.notNull())
    .addColumn("last_status", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "varchar(32)", (c) => c.notNull())
    .addColumn("finished_at", "varchar(32)")
    .addUniqueConstraint("webhook_deliveries_once", ["webhook_id", "event", "target_id"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due")
    .on("webhook_deliveries")
    .columns(["status", "next_attempt_at"])
    .execute();
}

/**
 * Freshness and TLP/PAP gating: what each request asks (vendor ids fixed when it is created, so a
 * joiner never widens it), whether it is a background refresh, its markings; the subject's
 * per-vendor outcomes merged across requests (lookups.sources); room for "AMBER+STRICT".
 */
const freshnessAndTlp = (dialect: "sqlite" | "postgres"): Migration => ({
  async up(db: AnyDb) {
    await db.schema.alterTable("requests").addColumn("asked", "text").execute();
    await db.schema
      .alterTable("requests")
      .addColumn("background", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable("requests").addColumn("tlp", "varchar(16)").execute();
    await db.schema.alterTable("requests").addColumn("pap", "varchar(16)").execute();
    await db.schema.alterTable("lookups").addColumn("sources", "text").execute();
    // SQLite does not enforce varchar lengths (and cannot alter a column's type).
    if (dialect === "postgres") {
      for (const column of ["tlp", "pap"])
        await db.schema
          .alterTable("entities")
          .alterColumn(column, (c) => c.setDataType("varchar(16)"))
          .execute();
    }
  },
});

/** The last test of each credential set (the panel's Test button): when, passed or not, what the vendor said. */
const credentialChecks: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("credential_checks")
      .addColumn("credential_id", "integer", (c) => c.primaryKey())
      .addColumn("checked_at", "varchar(32)", (c) => c.notNull())
      .addColumn("ok", "integer", (c) => c.notNull())
      .addColumn("message", "text", (c) => c.notNull())
      .execute();
  },
};

/** Each vendor's raw answer to a request (redacted, size-capped), for admins; forgotten with the request. */
const rawAnswers: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("request_raw_answers")
      .addColumn("request_id", "varchar(36)", (c) => c.notNull())
      .addColumn("vendor", "varchar(64)", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("size", "integer", (c) => c.notNull())
      .addColumn("truncated", "integer", (c) => c.notNull())
      .addColumn("created_at", "varchar(32)", (c) => c.notNull())
      .addPrimaryKeyConstraint("request_raw_answers_pk", ["request_id", "vendor"])
      .execute();
  },
};

/** Threat names folded across vendors' spellings → the entity they stand for (first spelling saved). */
const threatNames: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("threat_names")
      .addColumn("folded", "varchar(2200)", (c) => c.primaryKey())
      .addColumn("super_type", "varchar(64)", (c) => c.notNull())
      .addColumn("type", "varchar(64)", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("created_at", "varchar(32)", (c) => c.notNull())
      .execute();
  },
};

/**
 * Relations by their first end: a subject's neighbourhood is read from both ends, and without it
 * each ring of a large graph scanned the whole table (the natural key starts with the name).
 */
const relationsFrom: Migration = {
  async up(db: AnyDb) {
    await db.schema.createIndex("relations_from").on("relations").column("obj_from").execute();
  },
};

/** Every migration by name, in order (exported so a test can build the schema an older release had). */
export const provider = (dialect: "sqlite" | "postgres"): MigrationProvider => ({
  getMigrations: async () => ({
    "2026-11-22-initial": initial(dialect),
    "2026-11-23-admin-sessions": adminSessions,
    "2026-11-23-subject-asks": subjectAsks,
    "2026-11-23-audit-log": auditLog(dialect),
    "2026-11-24-quotas": quotas(dialect),
    "2026-11-24-bulk-hooks": bulkHooks,
    "2026-11-24-freshness-tlp": freshnessAndTlp(dialect),
    "2026-11-24-credential-checks": credentialChecks,
    "2026-11-24-raw-answers": rawAnswers,
    "2026-11-24-threat-names": threatNames,
    "2026-11-27-feed-copies": feedCopies(dialect),
    "2026-11-27-relations-from": relationsFrom,
    "2026-11-27-analyses": analyses(dialect),
    "2026-11-27-analysis-thumbnails": analysisThumbnails(dialect),
  }),
});

/** Migrations this code knows and the database has not run yet (read only: nothing is created). */
export async function pendingMigrations(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
): Promise<string[]> {
  const known = await new Migrator({ db, provider: provider(dialect) }).getMigrations();
  return known.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/** The super types and types to keep in the type tables (given by the caller: the store knows no taxonomy). */
export type TaxonomySeed = {
  shortName: string;
  name: string;
  types: { shortName: string; name: string; icon: string }[];
}[];

export async function migrate(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  taxonomy: TaxonomySeed,
): Promise<void> {
  if (dialect === "postgres") await sql`select pg_advisory_lock(4206942)`.execute(db);
  try {
    const { error } = await new Migrator({ db, provider: provider(dialect) }).migrateToLatest();
    if (error) throw error;
    await seedTaxonomy(db, taxonomy);
  } finally {
    if (dialect === "postgres") await sql`select pg_advisory_unlock(4206942)`.execute(db);
  }
}

async function seedTaxonomy(db: Kysely<Database>, taxonomy: TaxonomySeed): Promise<void> {
  for (const st of taxonomy) {
    await db
      .insertInto("super_types")
      .values({ short_name: st.shortName, name: st.name })
      .onConflict((oc) => oc.column("short_name").doUpdateSet({ name: st.name }))
      .execute();
    for (const t of st.types) {
      await db
        .insertInto("types")
        .values({ super_type: st.shortName, short_name: t.shortName, name: t.name, nf_icon: t.icon })
        .onConflict((oc) =>
          oc.columns(["super_type", "short_name"]).doUpdateSet({ name: t.name, nf_icon: t.icon }),
        )
        .execute();
    }
  }
}
