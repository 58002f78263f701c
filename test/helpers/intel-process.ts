/**
 * An intel service in its own OS process with an API key to call it: the key is made directly in
 * the process's SQLite file (WAL lets two processes share it), as `./loupe intel token create` would.
 */
import path from "node:path";
import { createToken, createUser } from "../../src/intel/store/accounts.ts";
import { openStore } from "../../src/intel/store/db.ts";
import { type RealProcess, startIntelProcess } from "./real-process.ts";

export interface IntelProcess extends RealProcess {
  key: string;
  /** An active admin user whose password is PROCESS_PASSWORD. */
  username: string;
  /** Authorized JSON call. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
}

export const PROCESS_PASSWORD = "a-long-password";

/** A new admin user (password PROCESS_PASSWORD) and an API key of theirs, in the process's database. */
export async function addUserWithKey(server: RealProcess): Promise<{ username: string; key: string }> {
  const store = await openStore(server.databaseUrl ?? `sqlite:${path.join(server.dir, "intel.db")}`);
  const username = `tester${Math.random().toString(36).slice(2, 8)}`;
  try {
    const user = await createUser(store.db, username, PROCESS_PASSWORD, true);
    return { username, key: (await createToken(store.db, user.id)).key };
  } finally {
    await store.close();
  }
}

export async function startIntelProcessWithKey(
  env: Record<string, string> = {},
  onStdout?: (chunk: Buffer) => void,
): Promise<IntelProcess> {
  const server = await startIntelProcess(env, onStdout);
  const { username, key } = await addUserWithKey(server);
  return {
    ...server,
    key,
    username,
    api: (pathname, init = {}) =>
      fetch(server.url + pathname, {
        ...init,
        headers: {
          authorization: `Token ${key}`,
          "content-type": "application/json",
          ...(init.headers as Record<string, string>),
        },
      }),
  };
}
