/** A real intel service on a random port, on a fresh SQLite file or a fresh PostgreSQL schema. */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { readCommonConfig } from "../../src/common/config.ts";
import type { App } from "../../src/common/http.ts";
import { createLogger, type Logger } from "../../src/common/logger.ts";
import { readIntelConfig } from "../../src/intel/config.ts";
import type { Connector } from "../../src/intel/connectors/types.ts";
import {
  buildIntelServer,
  type IntelServices,
  openIntelServices,
  startWorker,
} from "../../src/intel/server.ts";
import { createToken, createUser } from "../../src/intel/store/accounts.ts";
import { migratedTemplate } from "./pg-template.ts";
import { servicesRequired } from "./requires.ts";

export type DbKind = "sqlite" | "postgres";

export const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Whether PostgreSQL answers; under LOUPE_REQUIRE_SERVICES=1 its absence is an error. */
export async function postgresSkipReason(): Promise<string | false> {
  // Generous: a suite on SQLite registered before this call may already be starting and keep the
  // event loop busy on a loaded machine; a short timeout then skipped PostgreSQL suites at random.
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 15_000 });
  try {
    await client.connect();
    await client.end();
    return false;
  } catch (err) {
    if (servicesRequired)
      throw new Error(
        `LOUPE_REQUIRE_SERVICES=1 but PostgreSQL is not reachable at ${PG_URL}: ${String(err)}`,
      );
    return `PostgreSQL not reachable at ${PG_URL}`;
  }
}

/**
 * A database of its own: a temp SQLite file, or a new PostgreSQL database (dropped by `drop`).
 * `migrated`: a PostgreSQL one is cloned from a template whose migrations have run (the store's
 * first open then only checks them); SQLite's run in milliseconds anyway.
 */
export async function freshDatabase(
  kind: DbKind,
  opts: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === "sqlite") {
    const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-intel-db-"));
    return {
      url: `sqlite:${path.join(dir, "intel.db")}`,
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const name = `loupe_t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const template = opts.migrated ? ` template ${await migratedTemplate(PG_URL)}` : "";
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}${template}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestIntelServer {
  url: string;
  app: App;
  services: IntelServices;
  key: string;
  /** Authorized fetch. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startIntelServer(opts: {
  databaseUrl: string;
  env?: Record<string, string>;
  connectors?: Connector[];
  worker?: boolean;
  /** Where logs go (tests that inspect them); silent otherwise. */
  logger?: Logger;
  /** The vendor quotas' clock (a test moves its own; Date.now otherwise). */
  now?: () => number;
}): Promise<TestIntelServer> {
  // Only the vendors a test stands up a fake for: tests never reach a real vendor.
  const env = {
    ...process.env,
    INTEL_PORT: "0",
    DATABASE_URL: opts.databaseUrl,
    INTEL_RETRY_AFTER: "1",
    INTEL_CONNECTORS: "virustotal",
    // Local feeds are downloaded only from the fakes a test points them at.
    INTEL_FEEDS_REFRESH_MINUTES: "0",
    // Tests poll fast with one key; the per-key limit has its own tests.
    INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0",
    ...opts.env,
  };
  const config = readIntelConfig(env);
  const services = await openIntelServices(config, opts.connectors, { now: opts.now });
  if (opts.worker !== false) startWorker(services);
  const app = await buildIntelServer({
    common: readCommonConfig(env),
    services,
    logger: opts.logger ?? createLogger(process.env.LOG_LEVEL ?? "silent", "intel-test"),
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const user = await createUser(
    services.store.db,
    `tester${Math.random().toString(36).slice(2, 8)}`,
    "a-long-password",
    true,
  );
  const { key } = await createToken(services.store.db, user.id);
  return {
    url,
    app,
    services,
    key,
    api: (pathname, init = {}) =>
      fetch(url + pathname, {
        ...init,
        headers: {
          authorization: `Token ${key}`,
          "content-type": "application/json",
          ...(init.headers as Record<string, string>),
        },
      }),
    close: async () => {
      await app.close();
      await services.close();
    },
  };
}

/** Repeats the Colander call until it stops answering 201 (or gives up). */
export async function pollUntilDone(
  server: TestIntelServer,
  body: unknown,
  timeoutMs = 20_000,
): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await server.api("/api/request/", { method: "POST", body: JSON.stringify(body) });
    if (res.status !== 201 || Date.now() > deadline) return res;
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
  }
}
