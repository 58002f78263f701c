/**
 * Issue 27 M5 against a real `./loupe files serve` process: one client's costly 7z password runs
 * (2^24 key-derivation rounds per try) hold only its share of the extraction processes — another
 * client's small text is answered while both runs still go on (FILES_EXTRACT_CLIENT_SHARE).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { json } from "../helpers/json.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { sevenZipArchive, withKeyPower } from "../helpers/sevenzip.ts";
import { clientFrom } from "./yara-clients.ts";

const WRONG = Array.from({ length: 50 }, (_, i) => `wrong-guess-${i}`).join("\n");
type Entry = { success: boolean; error: string | null };

/** The extraction pool's health line, until `wanted` matches it. */
async function healthUntil(server: RealProcess, wanted: RegExp): Promise<string> {
  for (;;) {
    const detail = (await json(await fetch(`${server.url}/`))).engines.extractor.detail as string;
    if (wanted.test(detail)) return detail;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("one client's password work", { skip: skipUnlessCommands("7zz") }, () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({
      EXTRACT_WORKERS: "2",
      EXTRACT_TIMEOUT_MS: "600000",
      // The costly runs are allowed here, so that they last (about 2 s of hashing per try).
      ARCHIVE_MAX_KEY_POWER: "24",
      ARCHIVE_MAX_KEY_ROUNDS: String(2 ** 24 * 60),
      CLAMD_HOST: "127.0.0.1",
      CLAMD_PORT: "1",
    });
  });
  after(() => server?.close());

  it("holds one of two extraction processes (FILES_EXTRACT_CLIENT_SHARE=50): another client's text answers meanwhile", {
    timeout: 600_000,
  }, async () => {
    const costly = withKeyPower(
      await sevenZipArchive({ "note.txt": "dawn" }, { password: "dawn-42", encryptHeaders: true }),
      24,
    );
    const hostile = clientFrom("127.0.0.2");
    const ordinary = clientFrom("127.0.0.3");
    const stop = new AbortController();
    const pending = new Set<number>();
    const run = (i: number) => {
      pending.add(i);
      return hostile
        .post(`${server.url}/analyzer/extractor`, costly, { passwords: WRONG }, stop.signal)
        .catch(() => undefined)
        .finally(() => pending.delete(i));
    };
    const runs = [run(0)];
    try {
      await healthUntil(server, /1 running/);
      runs.push(run(1));
      // The second run waits for the first (without the share it takes the other process).
      const seen = await healthUntil(server, /2 running|[1-9]\d* extractions waited/);
      assert.match(seen, /1 running, 1 extractions waited/);
      const { status, body } = await ordinary.post(`${server.url}/analyzer/extractor`, "a small note", {});
      assert.equal(status, 200);
      const entry = (body.processors as Record<string, Entry>).extractor as Entry;
      assert.equal(entry.success, true, JSON.stringify(entry));
      assert.equal(body.content, "a small note");
      assert.equal(pending.size, 2, "the small text waited for a costly run to end");
      assert.match(
        await healthUntil(server, /./),
        /1 per client \(remote address, FILES_EXTRACT_CLIENT_SHARE\)/,
      );
    } finally {
      stop.abort();
      await Promise.all(runs);
      await Promise.all([hostile.close(), ordinary.close()]);
    }
  });
});
