/**
 * A client that hangs up is not the service's fault: against a real files process, bodies cut off
 * half-way (kept in memory, and written to disk) and clients leaving while their indicators are
 * scanned leave no error in its log, and the process still answers. Found by the soak (issue 27):
 * each cut upload was logged as `unhandled error: aborted`, each abandoned scan as `processor
 * failed unexpectedly` (piscina's AbortError), at error level — internal errors to whoever
 * watches the log.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { connect, multipartHead } from "../helpers/raw-upload.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";

const RULES = { rules: 'rule hit { strings: $a = "loupe" condition: $a }' };
const MiB = 1024 * 1024;

describe("uploads cut off by their client, against a real files process", () => {
  let server: RealProcess;
  const log: string[] = [];
  before(async () => {
    server = await startFilesProcess({ CLAMD_SOCKET: "/nonexistent" }, (chunk) => log.push(chunk.toString()));
  });
  after(() => server?.close());

  /** The service's log lines at error level or above, from its `since`th chunk of log on. */
  const errorLines = (since: number) =>
    log
      .slice(since)
      .join("")
      .split("\n")
      .filter((line) => /"level":(5|6)\d/.test(line))
      .map((line) => line.slice(0, 300));

  /** Announces `announced` bytes to `route`, sends `sent`, and hangs up. */
  async function cutOff(route: string, fields: Record<string, string>, announced: number, sent: number) {
    const socket = await connect(server.url);
    socket.on("error", () => undefined);
    socket.write(multipartHead(route, announced, fields));
    await new Promise<void>((resolve) => socket.write(Buffer.alloc(sent, 0x41), () => resolve()));
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
  }

  it("logs no error for a client that leaves while its indicators are scanned", async () => {
    const since = log.length;
    const text = Buffer.from(
      Array.from({ length: 60_000 }, (_, i) => `host-${i}.lantern-c2.org 10.${i % 250}.1.${i % 200} `).join(
        "",
      ),
    );
    for (const ms of [300, 600, 900, 1200, 1500, 2000]) {
      const client = new AbortController();
      const answer = postFile(`${server.url}/analyzer/iocs`, text, "many.txt", {}, client.signal).catch(
        () => null,
      );
      setTimeout(() => client.abort(), ms);
      await answer;
    }
    const res = await postFile(`${server.url}/analyzer/extractor`, "still here", "note.txt");
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 500)); // the last log lines
    assert.deepEqual(errorLines(since), []);
  });

  it("logs no error for bodies cut off in memory or on their way to disk, and answers after", async () => {
    const since = log.length;
    for (let i = 0; i < 5; i++) {
      await cutOff("/analyzer/rulematch", RULES, 60_000, 30_000);
      await cutOff("/analyzer/extractor", {}, 20 * MiB, 2 * MiB);
    }
    const res = await postFile(`${server.url}/analyzer/extractor`, "still here", "note.txt");
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { content?: string }).content, "still here");
    await new Promise((r) => setTimeout(r, 200)); // the last log lines
    assert.deepEqual(errorLines(since), []);
  });
});
