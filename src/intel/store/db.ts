/** Opens the database named by INTEL_DATABASE_URL: SQLite (better-sqlite3, WAL) or PostgreSQL (pg). */
import { mkdirSync } from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from "kysely";
import pg from "pg";
import { resolveFromRoot } from "../../common/config.ts";
import { migrate, type TaxonomySeed } from "./migrations.ts";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export async function openStore(
  url: string,
  opts: {
    migrate?: boolean /** Keep trying this long while the database is unreachable. */;
    waitMs?: number;
    /** The entity types to keep in the database's type tables (the services pass the taxonomy). */
    taxonomy?: TaxonomySeed;
  } = {},
): Promise<Store> {
  let db: Kysely<Database>;
  let dialect: Dialect;
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    dialect = "postgres";
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle connection cut by the server (restart, failover, admin) must not crash the process:
    // the pool replaces it on the next query. Say so instead of throwing an uncaught error.
    pool.on("error", (err) => process.emitWarning(`PostgreSQL connection lost: ${err.message}`));
    // A connection in use (a transaction, a query) cut by a restart errors its query, and also emits
    // "error" on the client, which the pool does not listen to while the client is lent out: without
    // this listener that event would kill the process.
    pool.on("connect", (client) => client.on("error", () => undefined));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else if (url.startsWith("sqlite:")) {
    dialect = "sqlite";
    const file = url.slice("sqlite:".length);
    const target = file === ":memory:" ? file : resolveFromRoot(file);
    if (target !== ":memory:") mkdirSync(path.dirname(target), { recursive: true });
    const sqlite = new SqliteDatabase(target);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("busy_timeout = 5000");
    sqlite.pragma("synchronous = NORMAL");
    cachePreparedStatements(sqlite);
    db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
  } else {
    throw new Error(`INTEL_DATABASE_URL must start with sqlite: or postgres://, got "${url}"`);
  }
  if (opts.migrate !== false)
    await untilReachable(() => migrate(db, dialect, opts.taxonomy ?? []), opts.waitMs ?? 0);
  return { db, dialect, close: () => db.destroy() };
}

/**
 * Transactions on SQLite take the write lock when they begin (BEGIN IMMEDIATE), waiting up to the
 * busy timeout for it. The intel API and its worker are separate processes on one file: a
 * deferred transaction that read and then wrote after the other process committed failed at
 * once (SQLITE_BUSY_SNAPSHOT, no wait), so lookups were refused under load.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

/** Retries `step` while the database is unreachable (a worker started while PostgreSQL restarts). */
async function untilReachable(step: () => Promise<void>, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let delay = 250; ; delay = Math.min(delay * 2, 4000)) {
    try {
      return await step();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() + delay > deadline) throw err;
      process.emitWarning(`database not reachable yet (${errorText(err)}); retrying`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Kysely prepares every query anew; the same few SQL texts recur on every request, so prepared
 * statements are kept (by SQL text, bounded) — preparing was 11 % of a cached answer's CPU time.
 */
function cachePreparedStatements(sqlite: SqliteDatabase.Database, max = 500): void {
  const statements = new Map<string, SqliteDatabase.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    let statement = statements.get(source);
    if (!statement) {
      statement = prepare(source);
      statements.set(source, statement);
      if (statements.size > max) statements.delete(statements.keys().next().value as string);
    }
    return statement;
  }) as typeof sqlite.prepare;
}

/** PostgreSQL error classes that mean "the server is going away or not there yet", not "the query is wrong". */
const UNAVAILABLE_SQLSTATES = /^(08|57P0[1-3])/;
const UNAVAILABLE_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "SQLITE_BUSY",
  "SQLITE_BUSY_SNAPSHOT",
]);

/**
 * Whether an error means the database is unreachable for a moment (restart, failover, a busy
 * SQLite file) — worth retrying — rather than a fault in the query or the data.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  const code = typeof e.code === "string" ? e.code : "";
  if (UNAVAILABLE_NODE_CODES.has(code) || (code.length === 5 && UNAVAILABLE_SQLSTATES.test(code)))
    return true;
  const message = typeof e.message === "string" ? e.message : "";
  return /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i.test(
    message,
  );
}
