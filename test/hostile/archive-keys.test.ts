/**
 * Password work bounded by its cost, against a real files process: 7z archives (written by 7zz at
 * test time, then patched) whose key derivation asks for 2^24 rounds are not tried; fifty wrong
 * passwords stop at the key-rounds budget; a small 7z with encrypted names opens with its password.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { sevenZipArchive, withKeyPower } from "../helpers/sevenzip.ts";

const NOTE = "Field note: the courier meets the handler at dawn.";
/** Eight derivations at 7-Zip's own cost (2^19 rounds). */
const KEY_ROUNDS = 8 * 2 ** 19;
const WRONG = Array.from({ length: 50 }, (_, i) => `wrong-guess-${i}`).join("\n");

describe("password work against a real files process", { skip: skipUnlessCommands("7zz") }, () => {
  let files: RealProcess;
  before(async () => {
    files = await startFilesProcess({
      EXTRACT_WORKERS: "1",
      ARCHIVE_MAX_KEY_ROUNDS: String(KEY_ROUNDS),
      CLAMD_HOST: "127.0.0.1",
      CLAMD_PORT: "1",
    });
  });
  after(() => files?.close());

  async function extract(bytes: Buffer, name: string, passwords: string): Promise<Json> {
    const res = await postFile(`${files.url}/analyzer/extractor`, bytes, name, { passwords });
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body).slice(0, 500));
    return { ...body.processors.extractor, content: body.content };
  }

  it("opens a 7z of one file with encrypted names with the right password", async () => {
    const archive = await sevenZipArchive(
      { "note.txt": NOTE },
      { password: "dawn-42", encryptHeaders: true },
    );
    const entry = await extract(archive, "one.7z", "wrong\ndawn-42");
    assert.equal(entry.success, true, JSON.stringify(entry).slice(0, 500));
    assert.equal(entry.analysis.extra.archive.entries[0].password_used, "dawn-42");
    assert.match(entry.content, /courier meets the handler/);
  });

  it("tries no password on encrypted names whose key asks for 2^24 rounds, and says why", async () => {
    const archive = await sevenZipArchive(
      { "note.txt": NOTE },
      { password: "dawn-42", encryptHeaders: true },
    );
    const entry = await extract(withKeyPower(archive, 24), "costly.7z", WRONG);
    assert.equal(entry.success, false);
    assert.equal(entry.error_short, "parse_error", entry.error);
    assert.match(entry.error, /2\^24 rounds .*ARCHIVE_MAX_KEY_POWER \(2\^22\); no password was tried/);
    await assertSurvived(files);
  });

  it("lists entries whose key asks for 2^24 rounds as encrypted, not tried, with the reason", async () => {
    const files7z = { "note.txt": NOTE, "more.txt": "second" };
    const archive = await sevenZipArchive(files7z, { password: "dawn-42", headerCompression: false });
    const entry = await extract(withKeyPower(archive, 24), "costly-entries.7z", WRONG);
    assert.equal(entry.success, true, JSON.stringify(entry).slice(0, 500));
    const entries = entry.analysis.extra.archive.entries;
    assert.equal(entries.length, 2);
    for (const e of entries) {
      assert.equal(e.encrypted, true);
      assert.equal(e.opened, false);
      assert.match(e.reason, /2\^24 rounds per password, over FILES_ARCHIVE_MAX_KEY_POWER/);
    }
  });

  it("stops fifty wrong passwords at the key-rounds budget, and the answer says so", async () => {
    const archive = await sevenZipArchive(
      { "note.txt": NOTE, "more.txt": "second" },
      { password: "dawn-42" },
    );
    const entry = await extract(archive, "guessed.7z", WRONG);
    assert.equal(entry.success, true, JSON.stringify(entry).slice(0, 500));
    const archiveFacts = entry.analysis.extra.archive;
    assert.ok(archiveFacts.entries.every((e: Json) => e.encrypted && e.opened === false));
    assert.match(archiveFacts.truncated, new RegExp(`more than ${KEY_ROUNDS} key-derivation rounds`));
    assert.equal(entry.analysis.extra.loupe.truncated, archiveFacts.truncated);
    // The right password within the budget still opens it (one key per password and block).
    const right = await extract(archive, "guessed.7z", "a\nb\nc\ndawn-42");
    assert.match(right.content, /courier meets the handler/);
    await assertSurvived(files);
  });
});
