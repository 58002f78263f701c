/**
 * clamd reading Loupe's files by path (FILES_CLAMD_SCAN_PATHS): which clamd may, and the SCAN
 * command against a real clamd (names with spaces and colons, a detection, a path clamd cannot
 * read is an error, never clean).
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { ClamdError, scanFile } from "../../src/files/clamd/client.ts";
import { readFilesConfig } from "../../src/files/config.ts";
import { configuredClamd } from "../../src/files/processors/antivirus.ts";
import { EICAR, suiteClamdAndFolder } from "../helpers/clamd.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

describe("which clamd reads files by path (FILES_CLAMD_SCAN_PATHS)", () => {
  const managed = { socket: "/run/loupe/clamd.sock" };
  const clamdOf = (env: NodeJS.ProcessEnv) => configuredClamd(readFilesConfig(env), managed);

  it("auto: the clamd Loupe runs itself does, one named by the operator does not", () => {
    assert.deepEqual(clamdOf({}), { socket: managed.socket, scanPaths: true });
    assert.deepEqual(clamdOf({ FILES_CLAMD_SOCKET: "/run/clamav/clamd.ctl" }), {
      socket: "/run/clamav/clamd.ctl",
      scanPaths: false,
    });
    assert.deepEqual(clamdOf({ FILES_CLAMD_HOST: "av.internal" }), {
      host: "av.internal",
      port: 3310,
      scanPaths: false,
    });
  });

  it("yes and no override auto either way", () => {
    assert.equal(clamdOf({ FILES_CLAMD_SOCKET: "/s", FILES_CLAMD_SCAN_PATHS: "yes" })?.scanPaths, true);
    assert.equal(clamdOf({ FILES_CLAMD_SCAN_PATHS: "no" })?.scanPaths, false);
    assert.throws(() => clamdOf({ FILES_CLAMD_SCAN_PATHS: "sometimes" }), /FILES_CLAMD_SCAN_PATHS/);
  });
});

describe("SCAN by path against a real clamd", { skip: skipUnlessCommands("clamd") }, () => {
  const suite = suiteClamdAndFolder(10_000_000);
  const byPath = () => ({ ...suite.clamd.address, scanPaths: true });

  it("finds a signature in a file whose name holds spaces and a colon, and passes a clean one", async () => {
    const infected = path.join(suite.dir, "invoice: final copy.com");
    const clean = path.join(suite.dir, "letter: to a friend.txt");
    await writeFile(infected, EICAR);
    await writeFile(clean, "just a letter\n");
    assert.deepEqual(await scanFile(byPath(), infected, 10_000), {
      infected: true,
      signature: "Loupe.Test.EICAR.UNOFFICIAL",
    });
    assert.deepEqual(await scanFile(byPath(), clean, 10_000), { infected: false });
  });

  it("a relative path is made absolute (clamd resolves paths against its own folder)", async () => {
    const file = path.join(suite.dir, "relative.com");
    await writeFile(file, EICAR);
    const relative = path.relative(process.cwd(), file);
    assert.equal((await scanFile(byPath(), relative, 10_000)).infected, true);
  });

  it("a file clamd cannot read is an engine error, not a clean verdict", async () => {
    const missing = path.join(suite.dir, "gone.bin");
    await assert.rejects(
      scanFile(byPath(), missing, 10_000),
      (err: unknown) =>
        err instanceof ClamdError && err.short === "engine_error" && /ERROR/.test(err.message),
    );
  });
});
