/** A real clamd for tests, with Loupe's own signature database, in a temp folder of its own. */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { type ManagedClamd, startManagedClamd } from "../../src/files/clamd/managed.ts";

export async function startTestClamd(maxFileSize = 50_000_000): Promise<ManagedClamd & { dir: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-clamd-"));
  const clamd = await startManagedClamd(dir, { maxFileSize, log: { info: () => {}, warn: () => {} } });
  return {
    ...clamd,
    dir,
    stop: async () => {
      await clamd.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type TestClamd = Awaited<ReturnType<typeof startTestClamd>>;

/** For the suite it is called in: a test clamd and a temp folder, made before its tests, removed after. */
export function suiteClamdAndFolder(maxFileSize: number): { clamd: TestClamd; dir: string } {
  const suite = {} as { clamd: TestClamd; dir: string };
  before(async () => {
    suite.clamd = await startTestClamd(maxFileSize);
    suite.dir = await mkdtemp(path.join(os.tmpdir(), "loupe-clamd-suite-"));
  });
  after(async () => {
    await suite.clamd.stop();
    await rm(suite.dir, { recursive: true, force: true });
  });
  return suite;
}

/** The EICAR test file, assembled at run time. */
export const EICAR = Buffer.from(
  ["X5O!P%@AP[4\\PZX54(P^)7CC)7}$", "EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"].join(""),
  "latin1",
);

/** Detected by MD5 through Loupe's .hdb signature (Loupe.Test.File). */
export const LOUPE_TEST_FILE = Buffer.from(
  "Loupe antivirus test file: not malicious, detected on purpose.\n",
);

/** Detected anywhere in a file by Loupe's .ndb signature (Loupe.Test.Marker). */
export const LOUPE_MARKER = Buffer.from("LOUPE-TEST-SIGNATURE-7f3a9c");
