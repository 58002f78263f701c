/**
 * What the analyses suites share: an analysis row as the store keeps it (each suite overrides what
 * its test is about); a suite's data folder with the intel servers started on it, closed and
 * removed after the suite — servers first, so none writes into a folder being removed; and the
 * shape of a suite: a files service, then the same tests on each database.
 * (Their HTTP requests are in requests.ts beside this file.)
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import type { AnalysesTable } from "../../../src/intel/store/analysis-schema.ts";
import { describeOnEachDatabase, type SuiteDatabase } from "../../helpers/databases.ts";
import type { DbKind, TestIntelServer } from "../../helpers/intel-server.ts";

/** A pending analysis `id` of user `userId`, leased for a minute, with no file kept; `over` changes any column. */
export function analysisRow(id: string, userId: number, over: Partial<AnalysesTable> = {}): AnalysesTable {
  return {
    id,
    user_id: userId,
    name: `${id}.txt`,
    sha256: "0".repeat(64),
    sha1: "0".repeat(40),
    md5: "0".repeat(32),
    size: 5,
    rules_key: "0".repeat(64),
    status: "pending",
    error: null,
    tlp: "RED",
    pap: "RED",
    verdict: null,
    result: null,
    cached_from: null,
    shared: 0,
    created_at: new Date().toISOString(),
    finished_at: null,
    lease_until: new Date(Date.now() + 60_000).toISOString(),
    file_path: null,
    ...over,
  };
}

/** A suite's data folder (made before its tests) and what was started on it (closed after them). */
export interface AnalysesFolder {
  /** The folder given as DATA_DIR (analyses keep their files in `analyses/` below it). */
  readonly dataDir: string;
  /** Closes `it` after the suite, before the folder is removed. */
  keep<T extends { close(): Promise<unknown> }>(it: T): T;
  /** An intel server on the suite's database and this folder, with no connectors unless `env` names some. */
  startServer(env?: Record<string, string>): Promise<TestIntelServer>;
}

/** Call in a suite's body (before its own hooks): the folder is named `loupe-analyses-<name>-…`. */
export function analysesFolder(db: SuiteDatabase, name: string): AnalysesFolder {
  let dataDir: string | undefined;
  const open: Array<{ close(): Promise<unknown> }> = [];
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), `loupe-analyses-${name}-`));
  });
  after(async () => {
    for (const it of open) await it.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  const folder: AnalysesFolder = {
    get dataDir() {
      if (!dataDir) throw new Error("the data folder is made in before()");
      return dataDir;
    },
    keep(it) {
      open.push(it);
      return it;
    },
    async startServer(env = {}) {
      const server = await db.startIntelServer({
        env: { INTEL_CONNECTORS: "", DATA_DIR: folder.dataDir, ...env },
      });
      return folder.keep(server);
    },
  };
  return folder;
}

/** What a suite of `describeAnalyses` gets on each database. */
export interface AnalysesSuite<F> {
  db: SuiteDatabase;
  kind: DbKind;
  /** The suite's data folder, and the intel servers on it. */
  folder: AnalysesFolder;
  /** The files service (started before the suites). */
  files(): F;
}

/**
 * `describe(name)` with a files service started before it and closed after it, holding one suite
 * per database kind (`on sqlite`, `on postgres`), each with its own data folder (`loupe-analyses-<folder>-…`).
 */
export function describeAnalyses<F extends { close(): Promise<unknown> }>(
  name: string,
  options: { skip?: string | boolean; folder: string },
  startFiles: () => Promise<F>,
  body: (suite: AnalysesSuite<F>) => void,
): void {
  describe(name, { skip: options.skip ?? false }, () => {
    let files: F | undefined;
    before(async () => {
      files = await startFiles();
    });
    after(async () => {
      await files?.close();
    });
    describeOnEachDatabase(
      (kind) => `on ${kind}`,
      (db) =>
        body({
          db,
          kind: db.kind,
          folder: analysesFolder(db, options.folder),
          files: () => {
            if (!files) throw new Error("the files service is started in before()");
            return files;
          },
        }),
    );
  });
}
