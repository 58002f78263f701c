/**
 * clamd reading Loupe's files by path (FILES_CLAMD_SCAN_PATHS): which clamd may, and the SCAN
 * command against a real clamd (names with spaces and colons, a detection, a path clamd cannot
 * read is an error, never clean, a file over clamd's MaxFileSize sent and refused), and a bomb's
 * oversized child through a real files process.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { zipSync } from "fflate";
import { ClamdError, scanFile } from "../../src/files/clamd/client.ts";
import { readFilesConfig } from "../../src/files/config.ts";
import { configuredClamd } from "../../src/files/processors/antivirus.ts";
import { startChildServer } from "../helpers/child-server.ts";
import { EICAR, LOUPE_MARKER, suiteClamdAndFolder } from "../helpers/clamd.ts";
import { json } from "../helpers/json.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

describe("which clamd reads files by path (FILES_CLAMD_SCAN_PATHS)", () => {
  const managed = { socket: "/run/loupe/clamd.sock" };
  const clamdOf = (env: NodeJS.ProcessEnv) => configuredClamd(readFilesConfig(env), managed);

  it("auto: the clamd Loupe runs itself does, one named by the operator does not", () => {
    assert.deepEqual(clamdOf({}), { socket: managed.socket, scanPaths: true, pathMaxBytes: 250_000_000 });
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
    assert.deepEqual(
      clamdOf({ FILES_CLAMD_SOCKET: "/s", FILES_CLAMD_SCAN_PATHS: "yes", FILES_MAX_FILE_SIZE: "1000" }),
      {
        socket: "/s",
        scanPaths: true,
        pathMaxBytes: 1000,
      },
    );
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
    // A FIFO: Loupe sees a file of 0 bytes, clamd cannot scan it and answers an ERROR.
    const fifo = path.join(suite.dir, "not-a-regular-file");
    execFileSync("mkfifo", [fifo]);
    await assert.rejects(
      scanFile(byPath(), fifo, 10_000),
      (err: unknown) =>
        err instanceof ClamdError && err.short === "engine_error" && /ERROR/.test(err.message),
    );
  });

  it("a file larger than FILES_MAX_FILE_SIZE (a child out of an archive) is sent, and refused, never passed unread", async () => {
    // clamd's MaxFileSize is 11 MB here (startTestClamd(10 MB)); the signature sits past it.
    const big = path.join(suite.dir, "child-of-a-bomb.bin");
    await writeFile(big, Buffer.concat([Buffer.alloc(12 * 1024 * 1024, 0x41), LOUPE_MARKER]));
    // Why the bound: asked by path, clamd skips a file over its MaxFileSize and answers OK.
    assert.deepEqual(await scanFile(byPath(), big, 20_000), { infected: false });
    await assert.rejects(
      scanFile({ ...byPath(), pathMaxBytes: 10_000_000 }, big, 20_000),
      (err: unknown) => err instanceof ClamdError && err.short === "too_large",
    );
  });
});

describe("a bomb's child too large for clamd, through a files process that scans by path", {
  skip: skipUnlessCommands("clamd"),
}, () => {
  const suite = suiteClamdAndFolder(2_000_000);

  it("is named as not scanned (never clean), and the same process answers afterwards", async () => {
    const server = await startChildServer(["files", "serve"], {
      CLAMD_SOCKET: "socket" in suite.clamd.address ? suite.clamd.address.socket : "",
      FILES_CLAMD_SCAN_PATHS: "yes",
      MAX_FILE_SIZE: "2000000",
    });
    try {
      // 6 MB inflated from a few KB: over the upload limit, clamd's MaxFileSize and StreamMaxLength.
      const child = Buffer.concat([Buffer.alloc(6 * 1024 * 1024), LOUPE_MARKER]);
      const bomb = zipSync({ "payload.bin": child }, { level: 9 });
      const form = new FormData();
      form.append("file", new Blob([bomb]), "bomb.zip");
      const res = await fetch(`${server.url}/analyzer/antivirus`, { method: "POST", body: form });
      assert.equal(res.status, 200);
      const analysis = (await json(res)).processors.antivirus.analysis;
      assert.equal(analysis.infected, false);
      assert.equal(analysis.extra?.complete, false, JSON.stringify(analysis));
      assert.deepEqual(
        analysis.extra.not_scanned.map((n: { path: string }) => n.path),
        ["bomb.zip › payload.bin"],
      );
      const health = await json(await fetch(`${server.url}/`));
      assert.equal(health.engines.clamd.ready, true);
      assert.equal(server.child.exitCode, null, "the same process answers");
    } finally {
      await server.stop();
    }
  });
});
