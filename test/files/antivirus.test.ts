import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { EICAR, LOUPE_MARKER, LOUPE_TEST_FILE, startTestClamd } from "../helpers/clamd.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { storedZip } from "../helpers/zip.ts";

const LIMIT = 30_000_000;

// Both ways clamd gets an upload: sent its bytes (INSTREAM, streamed while the upload arrives) and
// asked to read the temp file itself (SCAN by path, the default with the clamd Loupe runs).
for (const scanPaths of ["no", "yes"] as const)
  describe(`POST /analyzer/antivirus against a real clamd (FILES_CLAMD_SCAN_PATHS=${scanPaths})`, {
    skip: skipUnlessCommands("clamd"),
  }, () => {
    let clamd: Awaited<ReturnType<typeof startTestClamd>>;
    let server: TestFilesServer;
    before(async () => {
      clamd = await startTestClamd(LIMIT);
      server = await startFilesServer({
        CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
        MAX_FILE_SIZE: String(LIMIT),
        SCAN_TIMEOUT_MS: "20000",
        FILES_CLAMD_SCAN_PATHS: scanPaths,
      });
    });
    after(async () => {
      await server.close();
      await clamd.stop();
    });

    const scan = async (bytes: Uint8Array | string, name = "sample.bin") => {
      const res = await postFile(`${server.url}/analyzer/antivirus`, bytes, name);
      assert.equal(res.status, 200);
      return json(res);
    };

    it("reports clamd ready with its version in the health check", async () => {
      const body = await json(await fetch(`${server.url}/`));
      assert.equal(body.engines.clamd.ready, true);
      assert.match(body.engines.clamd.version, /^ClamAV \d/);
      const how = scanPaths === "yes" ? "reads uploads by path" : "sent uploads' bytes (INSTREAM)";
      assert.equal(body.engines.clamd.detail, `local socket, ${how}`);
    });

    it("detects EICAR with the signature name, the file name and engine details", async () => {
      const body = await scan(EICAR, "eicar.com");
      assert.equal(body.success, true);
      assert.equal(body.content, null);
      const entry = body.processors.antivirus;
      assert.equal(entry.metadata, null);
      assert.equal(entry.analysis.infected, true);
      assert.equal(entry.analysis.description, "Loupe.Test.EICAR.UNOFFICIAL");
      assert.equal(entry.analysis.filename, "eicar.com");
      assert.match(entry.analysis.extra.engine, /^ClamAV/);
      assert.equal(entry.analysis.extra.signature, "Loupe.Test.EICAR.UNOFFICIAL");
      assert.equal(entry.analysis.extra.sha256, createHash("sha256").update(EICAR).digest("hex"));
    });

    it("detects EICAR inside a zip and a nested zip", async () => {
      const inner = storedZip({ "eicar.txt": EICAR });
      assert.equal((await scan(inner, "one.zip")).processors.antivirus.analysis.infected, true);
      const nested = storedZip({ "readme.txt": "hello", "inner.zip": storedZip({ "deeper.zip": inner }) });
      const body = await scan(nested, "nested.zip");
      assert.equal(body.processors.antivirus.analysis.infected, true);
      assert.match(body.processors.antivirus.analysis.description, /EICAR/);
    });

    it("detects Loupe's own hash and body signatures", async () => {
      assert.equal(
        (await scan(LOUPE_TEST_FILE)).processors.antivirus.analysis.description,
        "Loupe.Test.File.UNOFFICIAL",
      );
      const marked = Buffer.concat([Buffer.alloc(1000, 7), LOUPE_MARKER, Buffer.alloc(10, 1)]);
      assert.equal(
        (await scan(marked)).processors.antivirus.analysis.description,
        "Loupe.Test.Marker.UNOFFICIAL",
      );
    });

    it("finds nothing in clean files of several types", async () => {
      const clean = [
        Buffer.from("just a letter to a friend\n"),
        await sharp({ create: { width: 20, height: 20, channels: 3, background: "white" } })
          .png()
          .toBuffer(),
        storedZip({ "a.txt": "nothing to see" }),
        Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31) & 0xff)),
      ];
      for (const bytes of clean) {
        const entry = (await scan(bytes, "clean.bin")).processors.antivirus;
        assert.equal(entry.success, true);
        assert.deepEqual(entry.analysis, {
          infected: false,
          description: null,
          filename: "clean.bin",
          extra: null,
        });
      }
    });

    it("streams a file near the size limit and finds a signature at its end", async () => {
      const big = Buffer.concat([
        Buffer.alloc(LIMIT - 1000 - LOUPE_MARKER.length, 0x41),
        LOUPE_MARKER,
        Buffer.alloc(900),
      ]);
      const entry = (await scan(big, "big.bin")).processors.antivirus;
      assert.equal(entry.success, true, entry.error);
      assert.equal(entry.analysis.infected, true);
    });

    it("reports an unreachable clamd in the entry, keeps the service up, and says so in the health check", async () => {
      await clamd.stop();
      const body = await scan(EICAR);
      assert.equal(body.success, false);
      const entry = body.processors.antivirus;
      assert.equal(entry.success, false);
      assert.equal(entry.error_short, "engine_unavailable");
      assert.match(entry.error, /clamd is not reachable/);
      const health = await json(await fetch(`${server.url}/`));
      assert.equal(health.engines.clamd.ready, false);
    });
  });

describe("antivirus without any clamd", () => {
  it("answers 200 with the entry explaining that no clamd is configured", async () => {
    const server = await startFilesServer({ CLAMD_SOCKET: "/nonexistent/clamd.sock" });
    try {
      const res = await postFile(`${server.url}/analyzer/antivirus`, "x");
      assert.equal(res.status, 200);
      const body = await json(res);
      assert.equal(body.processors.antivirus.error_short, "engine_unavailable");
    } finally {
      await server.close();
    }
  });
});
