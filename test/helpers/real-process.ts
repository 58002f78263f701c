/**
 * Services as real OS processes (`./loupe files serve`, `./loupe intel serve`) for hostile-input
 * tests: the proof that an attack cost one request is that the same PID still answers afterwards.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type ChildServer, startChildServer } from "./child-server.ts";

export interface RealProcess extends ChildServer {
  /** The folder the service keeps its temp files and data in (removed by `close`). */
  dir: string;
  /** The database an intel process uses (its SQLite file in `dir` unless DATABASE_URL was given). */
  databaseUrl?: string;
  close(): Promise<void>;
}

/** A files service in its own process, with its own temp folder; `onStdout` receives its logs. */
export async function startFilesProcess(
  env: Record<string, string> = {},
  onStdout?: (chunk: Buffer) => void,
): Promise<RealProcess> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-real-files-"));
  const server = await startChildServer(
    ["files", "serve"],
    { FILES_TMP_DIR: dir, DATA_DIR: dir, ...env },
    "/",
    "FILES_PORT",
    onStdout,
  );
  return withCleanup(server, dir);
}

/**
 * An intel service (API, panel and embedded worker) in its own process on a fresh SQLite file, or
 * on the database `env.DATABASE_URL` names. `onStdout` receives its logs.
 */
export async function startIntelProcess(
  env: Record<string, string> = {},
  onStdout?: (chunk: Buffer) => void,
): Promise<RealProcess> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-real-intel-"));
  const databaseUrl = env.DATABASE_URL ?? `sqlite:${path.join(dir, "intel.db")}`;
  const server = await startChildServer(
    ["intel", "serve"],
    { DATABASE_URL: databaseUrl, DATA_DIR: dir, ...env },
    "/api/schema/",
    "INTEL_PORT",
    onStdout,
  );
  return { ...withCleanup(server, dir), databaseUrl };
}

function withCleanup(server: ChildServer, dir: string): RealProcess {
  return {
    ...server,
    dir,
    close: async () => {
      if (server.child.exitCode === null) await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The service survived: the same process is alive, and an ordinary request (`probe`) still
 * succeeds. `probe` defaults to the health check.
 */
export async function assertSurvived(
  server: RealProcess,
  probe: () => Promise<Response> = () => fetch(`${server.url}/`),
): Promise<void> {
  assert.equal(server.child.exitCode, null, `the service process ${server.pid} exited`);
  assert.equal(server.child.signalCode, null, `the service process ${server.pid} was killed`);
  const res = await probe();
  await res.arrayBuffer();
  assert.ok(res.status < 500, `an ordinary request after the attack answered ${res.status}`);
  assert.equal(server.child.pid, server.pid, "the service answering is the one that was attacked");
}
