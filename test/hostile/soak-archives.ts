/**
 * Password work in the soak (issue 27 M5, L8): 7z archives whose key derivation asks for 2^24
 * rounds, tried with fifty wrong passwords; an ordinary 7z guessed at fifty times (the key-rounds
 * budget stops it); and a small 7z with encrypted names, which must open with its password.
 */
import { sevenZipArchive, withKeyPower } from "../helpers/sevenzip.ts";
import { multipart, outcomeOf, type Shape } from "./soak-requests.ts";

const NOTE = "Field note: the courier meets the handler at dawn.";
const WRONG = Array.from({ length: 50 }, (_, i) => `wrong-guess-${i}`).join("\n");

const archiveShape = (name: string, accept: string[], archive: () => Promise<Buffer>, passwords = WRONG) =>
  multipart({
    kind: "archive-keys",
    name,
    route: "/analyzer/extractor",
    processor: "extractor",
    accept,
    build: async () => ({ bytes: await archive(), filename: "archive.7z", fields: { passwords } }),
  });

/** `200:opened` when the answer holds the note (the archive was opened), else what it was. */
async function opened(res: Response): Promise<string> {
  if (res.status !== 200) return outcomeOf(res, "extractor");
  const body = (await res.json()) as { content?: string | null };
  return body.content?.includes(NOTE) ? "200:opened" : "200:not-opened";
}

export function costlyArchiveShapes(): Shape[] {
  const twoFiles = { "note.txt": NOTE, "more.txt": "second" };
  return [
    archiveShape(
      "7z with encrypted names at 2^24 key rounds, 50 wrong passwords",
      ["200:parse_error"],
      async () =>
        withKeyPower(
          await sevenZipArchive({ "note.txt": NOTE }, { password: "dawn-42", encryptHeaders: true }),
          24,
        ),
    ),
    archiveShape(
      "7z of entries at 2^24 key rounds, 50 wrong passwords",
      ["200:ok", "200:partial"],
      async () =>
        withKeyPower(await sevenZipArchive(twoFiles, { password: "dawn-42", headerCompression: false }), 24),
    ),
    archiveShape(
      "7z guessed at with 50 wrong passwords (the key-rounds budget stops it)",
      ["200:partial"],
      () => sevenZipArchive(twoFiles, { password: "dawn-42" }),
    ),
    multipart({
      kind: "archive-keys",
      name: "small 7z with encrypted names, the right password after a wrong one",
      route: "/analyzer/extractor",
      accept: ["200:opened"],
      build: async () => ({
        bytes: await sevenZipArchive({ "note.txt": NOTE }, { password: "dawn-42", encryptHeaders: true }),
        filename: "one.7z",
        fields: { passwords: "wrong\ndawn-42" },
      }),
      read: opened,
    }),
  ];
}
