/**
 * `describeOnEachDatabase`: one suite run on SQLite and on PostgreSQL, each run on a fresh database
 * of its own (dropped after it), with the intel servers and stores started on it closed after it.
 * PostgreSQL is asked once, on import, before any suite starts (a running SQLite suite can hold the
 * event loop past the probe's time limit); it is skipped with the reason, or fails under CI.
 */
import { after, before, describe } from "node:test";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import {
  type DbKind,
  freshDatabase,
  postgresSkipReason,
  startIntelServer,
  type TestIntelServer,
} from "./intel-server.ts";

const postgresSkip = await postgresSkipReason();

type ServerOptions = Parameters<typeof startIntelServer>[0];

/** What a suite gets of the database it runs on. */
export interface SuiteDatabase {
  readonly kind: DbKind;
  /** The suite's own database, migrated (made before the suite's `before` hooks run). */
  readonly url: string;
  /** A store on the suite's database, opened once (closed after the suite). */
  store(): Promise<Store>;
  /** One more fresh database of this kind, for a test that needs one to itself (dropped after the suite). */
  fresh(): Promise<string>;
  /** An intel server on the suite's database (or `databaseUrl`), closed after the suite. */
  startIntelServer(opts?: Partial<ServerOptions>): Promise<TestIntelServer>;
}

/**
 * `describe(name, body)` once per database kind, named `<name> on <kind>` (or by `name(kind)`).
 * Servers, the store and the databases are closed after the suite's own `after` hooks have run.
 */
export function describeOnEachDatabase(
  name: string | ((kind: DbKind) => string),
  body: (db: SuiteDatabase) => void,
): void {
  for (const kind of ["sqlite", "postgres"] as const) {
    const title = typeof name === "string" ? `${name} on ${kind}` : name(kind);
    describe(title, { skip: kind === "postgres" ? postgresSkip : false }, () => suiteOn(kind, body));
  }
}

/** `describe(name, options, body)` on one database kind only (a suite whose subject is not the database). */
export function describeOnDatabase(
  kind: DbKind,
  name: string,
  options: { skip?: string | boolean },
  body: (db: SuiteDatabase) => void,
): void {
  const skip = options.skip || (kind === "postgres" ? postgresSkip : false);
  describe(name, { skip }, () => suiteOn(kind, body));
}

/** The body of one suite on one kind: its database before, everything it opened closed after. */
function suiteOn(kind: DbKind, body: (db: SuiteDatabase) => void): void {
  const drops: Array<() => Promise<void>> = [];
  const closes: Array<() => Promise<void>> = [];
  let url: string | undefined;
  let store: Promise<Store> | undefined;
  const fresh = async (migrated = false) => {
    const made = await freshDatabase(kind, { migrated });
    drops.push(made.drop);
    return made.url;
  };
  before(async () => {
    // Migrated already (the store, servers and processes opened on it find nothing to do);
    // `fresh()` stays empty for the suites that run the migrations themselves.
    url = await fresh(true);
  });
  const db: SuiteDatabase = {
    kind,
    get url() {
      if (!url) throw new Error("the suite's database is made in before()");
      return url;
    },
    store() {
      store ??= openStore(db.url).then((opened) => {
        closes.push(() => opened.close());
        return opened;
      });
      return store;
    },
    fresh: () => fresh(),
    async startIntelServer(opts = {}) {
      const server = await startIntelServer({ databaseUrl: db.url, ...opts });
      const close = once(server.close);
      closes.push(close);
      return { ...server, close };
    },
  };
  body(db);
  // Registered after the body's hooks, so these run last: a suite may still use a server in its own.
  after(async () => {
    for (const close of closes.reverse()) await close();
    for (const drop of drops) await drop();
  });
}

/** `fn` run at most once (a suite may close a server itself before the helper does). */
function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
}
