/**
 * Encrypted archive entries opened with passwords — the `passwords` field, ARCHIVE_PASSWORDS,
 * and those an e-mail body gives — on real archives written at test time by Info-ZIP's `zip -P`
 * (ZipCrypto) and 7-Zip (WinZip AES-256 ZIP, 7z AES with and without encrypted names), through
 * HTTP on a real files server; the attacks (a huge passwords field, 10,000 encrypted entries)
 * against a real files process that must survive them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { passwordsInText } from "../../src/files/processors/extractor/passwords.ts";
import { multipartEmail } from "../helpers/documents.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { encryptedZip, sevenZipArchive } from "../helpers/sevenzip.ts";

const NOTE = "The implant beacons to hxxps://c2-relay[.]net/gate every hour.";
const SECOND = "Second page of the field notes.";
const FILES = { "notes.txt": NOTE, "more.txt": SECOND };

const entriesOf = (analysis: Json) =>
  analysis.extra.archive.entries.map((e: Json) => ({
    name: e.name,
    encrypted: e.encrypted,
    opened: e.opened,
    password_used: e.password_used,
  }));

describe("encrypted archive entries", { skip: skipUnlessCommands("zip", "7zz") }, () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ ARCHIVE_MAX_PASSWORDS: "5" });
  });
  after(() => server.close());

  async function extract(bytes: Uint8Array | string, name: string, fields: Record<string, string> = {}) {
    const res = await postFile(`${server.url}/analyzer/extractor`, bytes, name, fields);
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.success, true, JSON.stringify(body));
    return { content: body.content as string, analysis: body.processors.extractor.analysis };
  }

  it("opens ZipCrypto, AES-256 ZIP, 7z and 7z with encrypted names with a default password", async () => {
    const fixtures: Array<[string, Buffer, string]> = [
      [
        "zipcrypto.zip",
        await encryptedZip(FILES, { password: "infected", method: "zipcrypto" }),
        "application/zip",
      ],
      ["aes.zip", await encryptedZip(FILES, { password: "infected", method: "aes256" }), "application/zip"],
      ["locked.7z", await sevenZipArchive(FILES, { password: "infected" }), "application/x-7z-compressed"],
      [
        "hidden.7z",
        await sevenZipArchive(FILES, { password: "infected", encryptHeaders: true }),
        "application/x-7z-compressed",
      ],
    ];
    for (const [name, bytes, type] of fixtures) {
      const { content, analysis } = await extract(bytes, name);
      assert.equal(analysis.type, type, name);
      const opened = entriesOf(analysis).sort((a: Json, b: Json) => a.name.localeCompare(b.name));
      assert.deepEqual(
        opened,
        ["more.txt", "notes.txt"].map((n) => ({
          name: n,
          encrypted: true,
          opened: true,
          password_used: "infected",
        })),
        name,
      );
      assert.match(content, /── notes\.txt ──\nThe implant beacons/, name);
      assert.match(content, /Second page/, name);
      const urls = analysis.extra.iocs.indicators.map((i: Json) => i.value);
      assert.ok(
        urls.includes("https://c2-relay.net/gate"),
        `${name}: the unlocked text is scanned for indicators`,
      );
    }
  });

  it("tries the passwords field first, one per line, and says which password opened which entry", async () => {
    const zip = await encryptedZip(FILES, {
      password: "Kx9-case",
      method: "zipcrypto",
      passwords: { "more.txt": "second-Pw" },
    });
    const closed = await extract(zip, "two-passwords.zip");
    assert.deepEqual(entriesOf(closed.analysis), [
      { name: "notes.txt", encrypted: true, opened: false, password_used: undefined },
      { name: "more.txt", encrypted: true, opened: false, password_used: undefined },
    ]);
    assert.doesNotMatch(closed.content, /implant/);
    const { content, analysis } = await extract(zip, "two-passwords.zip", {
      passwords: "wrong\r\nKx9-case\nsecond-Pw\n",
    });
    assert.deepEqual(entriesOf(analysis), [
      { name: "notes.txt", encrypted: true, opened: true, password_used: "Kx9-case" },
      { name: "more.txt", encrypted: true, opened: true, password_used: "second-Pw" },
    ]);
    assert.match(content, /implant/);
    const sevenZip = await sevenZipArchive(FILES, { password: "p@ss w0rd", encryptHeaders: true });
    const seven = await extract(sevenZip, "spaced.7z", { passwords: "p@ss w0rd" });
    assert.equal(seven.analysis.extra.archive.entries[0].password_used, "p@ss w0rd");
  });

  it("tries the password an e-mail body gives on that e-mail's attachments only", async () => {
    const zip = await encryptedZip(FILES, { password: "Rq7-zeb", method: "aes256" });
    const eml = multipartEmail({
      subject: "Documents",
      body: "Bonjour,\nle mot de passe : Rq7-zeb.\nCordialement",
      attachmentName: "docs.zip",
      attachment: zip,
    });
    const { content, analysis } = await extract(eml, "message.eml");
    assert.equal(analysis.extra.mail.attachments[0].type, "application/zip");
    assert.match(content, /── attachment docs\.zip ──\n/);
    assert.match(content, /── notes\.txt ──\nThe implant/);
    // The same archive alone: no body, no password.
    const alone = await extract(zip, "docs.zip");
    assert.equal(alone.analysis.extra.archive.entries[0].opened, false);
  });

  it("refuses too many passwords and too long a password with a 400", async () => {
    const zip = await encryptedZip(FILES, { password: "x", method: "zipcrypto" });
    for (const [passwords, code] of [
      ["a\nb\nc\nd\ne\nf", "too_many_passwords"],
      ["p".repeat(129), "invalid_field"],
    ]) {
      const res = await postFile(`${server.url}/analyzer/extractor`, zip, "x.zip", {
        passwords: passwords as string,
      });
      assert.equal(res.status, 400);
      assert.equal((await json(res)).code, code);
    }
  });
});

describe("passwords in a message body", () => {
  it("finds them after the words people use, in several languages", () => {
    assert.deepEqual(passwordsInText("The password is infected."), ["infected"]);
    assert.deepEqual(passwordsInText("pwd: Abc-123; zip attached"), ["Abc-123"]);
    assert.deepEqual(passwordsInText('Mot de passe : "s3cr3t"'), ["s3cr3t"]);
    assert.deepEqual(passwordsInText("Passwort: Geheim9 und Kennwort = zwei2"), ["Geheim9", "zwei2"]);
    assert.deepEqual(passwordsInText("nothing here about a key"), []);
  });

  it("keeps at most eight, and reads a hostile body in one pass", () => {
    const hostile = "password: ".repeat(200_000) + "pass ".repeat(200_000);
    const found = passwordsInText(hostile);
    assert.ok(found.length <= 8);
    const many = Array.from({ length: 50 }, (_, i) => `password: pw${i}`).join("\n");
    assert.equal(passwordsInText(many).length, 8);
  });
});

describe("attacks on the passwords", { skip: skipUnlessCommands("zip") }, () => {
  let files: RealProcess;
  before(async () => {
    files = await startFilesProcess({
      CLAMD_HOST: "127.0.0.1",
      CLAMD_PORT: "1",
      ARCHIVE_MAX_PASSWORD_TRIES: "300",
      MAX_FORM_FIELD_SIZE: "1000000",
    });
  });
  after(() => files?.close());

  it("refuses a field of 10,000 passwords before any work", async () => {
    const passwords = Array.from({ length: 10_000 }, (_, i) => `guess-${i}`).join("\n");
    const res = await postFile(`${files.url}/analyzer/extractor`, "plain text", "a.txt", { passwords });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "too_many_passwords");
    await assertSurvived(files);
  });

  it("stops trying on 10,000 encrypted entries no password opens: a partial answer that says why", async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) many[`f${i}.txt`] = `entry ${i}`;
    const zip = await encryptedZip(many, { password: "nobody-knows-it", method: "zipcrypto" });
    const guesses = Array.from({ length: 40 }, (_, i) => `guess-${i}`).join("\n");
    const res = await postFile(`${files.url}/analyzer/extractor`, zip, "many.zip", { passwords: guesses });
    const body = await json(res);
    assert.equal(res.status, 200);
    const entry = body.processors.extractor;
    assert.equal(entry.success, true, JSON.stringify(entry).slice(0, 500));
    const archive = entry.analysis.extra.archive;
    assert.equal(archive.entry_count, 10_000);
    assert.ok(archive.entries.every((e: Json) => e.encrypted === true && e.opened === false));
    assert.match(archive.truncated, /more than 300 password tries|time limit/);
    await assertSurvived(files);
  });
});
