/**
 * Attacks on the uploads kept in memory (within UPLOAD_MEMORY_MAX, by Content-Length), against a
 * real files process: many bodies cut off half-way, clients that stall after a few bytes while
 * another one is answered, and a Content-Length that announces less than is sent. The same process
 * must answer an ordinary rule match afterwards, with nothing left in its temp folder.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { connect, MULTIPART_END, multipartHead } from "../helpers/raw-upload.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";

const RULES = 'rule hit { strings: $a = "loupe" condition: $a }';
/** The start of a multipart rule match whose whole body is announced as `length` bytes. */
const head = (length: number) => multipartHead("/analyzer/rulematch", length, { rules: RULES });

/** An ordinary small rule match: it must match, from the same process. */
async function ordinaryMatch(server: RealProcess): Promise<Response> {
  const res = await postFile(`${server.url}/analyzer/rulematch`, Buffer.from("hello loupe"), "ok.txt", {
    rules: RULES,
  });
  return res;
}

/** Upload temp files in the process's own folder (`<pid>-<id>/`) under its temp directory. */
async function leftoverFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /(^|\/)\d+-[0-9a-f]{8}$/.test(e.parentPath.slice(dir.length)))
    .map((e) => e.name);
}

async function assertMatches(server: RealProcess): Promise<void> {
  const body = await json(await ordinaryMatch(server));
  assert.deepEqual(
    body.processors.rulematch.analysis.matches.map((m: { rule: string }) => m.rule),
    ["hit"],
  );
}

describe("hostile: uploads kept in memory (rulematch within UPLOAD_MEMORY_MAX)", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({ HTTP_BODY_IDLE_TIMEOUT_MS: "2000", CLAMD_SOCKET: "/nonexistent" });
  });
  after(async () => {
    await server?.close();
  });

  it("survives 200 bodies cut off half-way, and keeps nothing on disk", async () => {
    await Promise.all(
      Array.from({ length: 200 }, async () => {
        const socket = await connect(server.url);
        socket.on("error", () => undefined);
        socket.write(head(60_000));
        socket.write(Buffer.alloc(30_000, 0x41));
        await new Promise((r) => setTimeout(r, 20));
        socket.destroy();
      }),
    );
    await assertSurvived(server, () => ordinaryMatch(server));
    await assertMatches(server);
    assert.deepEqual(await leftoverFiles(server.dir), []);
  });

  it("answers another client while 50 stall after a few bytes, then drops the stalled ones", async () => {
    const stalled = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const socket = await connect(server.url);
        socket.on("error", () => undefined);
        socket.write(head(60_000));
        return socket;
      }),
    );
    try {
      await assertMatches(server);
      // The body idle limit (HTTP_BODY_IDLE_TIMEOUT_MS) ends each of them: they are closed by the server.
      const closed = await Promise.all(
        stalled.map((s) => new Promise<boolean>((r) => s.once("close", () => r(true)))),
      );
      assert.equal(closed.filter(Boolean).length, 50);
    } finally {
      for (const s of stalled) s.destroy();
    }
    await assertSurvived(server, () => ordinaryMatch(server));
  });

  it("refuses a body longer than its Content-Length with a 400: the extra bytes never become a scan", async () => {
    const socket = await connect(server.url);
    const reply = new Promise<string>((resolve) => {
      let text = "";
      socket.on("data", (d: Buffer) => {
        text += d.toString("latin1");
      });
      socket.on("close", () => resolve(text));
      socket.on("error", () => resolve(text));
    });
    // Announces 300 bytes (the multipart head fits, the file and closing boundary do not), sends 60 KB.
    socket.write(head(300));
    socket.write(Buffer.alloc(60_000, 0x42));
    socket.end(MULTIPART_END);
    const text = await reply;
    // The 300 bytes are a truncated form (400); what follows them is not HTTP, so the parser
    // answers 400 and closes the connection. Nothing is ever matched or answered 200.
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.doesNotMatch(text, /HTTP\/1\.1 200 /);
    await assertSurvived(server, () => ordinaryMatch(server));
    await assertMatches(server);
  });
});
