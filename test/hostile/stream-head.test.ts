/**
 * Compressed streams over the bytes budget keep their head, against a real files process: a
 * gzip, XZ or BZIP2 stream of a note followed by padding past EXTRACT_MAX_ARCHIVE_BYTES gives the
 * note's text and indicators, and the answer says the stream was cut (padding hid them before).
 * The padding alone, as a text file, is read too (whitespace is normalised in linear time).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { postFile } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { compressedStream } from "../helpers/sevenzip.ts";

const BUDGET = 2_000_000;
const NOTE = "Stage two downloads from hxxps://payload-cache[.]net/stage2.bin at boot.\n";
/** The note, then ten times the budget of padding. */
const PADDED = Buffer.concat([Buffer.from(NOTE), Buffer.alloc(10 * BUDGET, 0x20)]);

describe("compressed streams over the budget keep their head", { skip: skipUnlessCommands("7zz") }, () => {
  let files: RealProcess;
  before(async () => {
    files = await startFilesProcess({
      EXTRACT_WORKERS: "1",
      EXTRACT_MAX_ARCHIVE_BYTES: String(BUDGET),
      CLAMD_HOST: "127.0.0.1",
      CLAMD_PORT: "1",
    });
  });
  after(() => files?.close());

  it("a text file of the note and megabytes of spaces and tabs is read whole", async () => {
    const text = Buffer.concat([Buffer.from(NOTE), Buffer.alloc(BUDGET, 0x20), Buffer.alloc(BUDGET, 0x09)]);
    const res = await postFile(`${files.url}/analyzer/extractor`, text, "padded.txt");
    const body = await json(res);
    assert.equal(body.processors.extractor.success, true, JSON.stringify(body).slice(0, 500));
    assert.match(body.content, /Stage two downloads/);
  });

  const cases: Array<[string, () => Promise<Buffer>]> = [
    ["note.txt.gz", async () => gzipSync(PADDED)],
    ["note.txt.xz", () => compressedStream(PADDED, "xz")],
    ["note.txt.bz2", () => compressedStream(PADDED, "bzip2")],
  ];
  for (const [name, bytes] of cases) {
    it(`${name}: the note's text and indicators, and that the stream was cut`, async () => {
      const res = await postFile(`${files.url}/analyzer/extractor`, await bytes(), name);
      const body = await json(res);
      assert.equal(res.status, 200);
      const entry = body.processors.extractor;
      assert.equal(entry.success, true, JSON.stringify(entry).slice(0, 500));
      assert.match(body.content, /Stage two downloads/);
      const urls = entry.analysis.extra.iocs.indicators.map((i: Json) => i.value);
      assert.ok(urls.includes("https://payload-cache.net/stage2.bin"), JSON.stringify(urls));
      const cut = `more than ${BUDGET} uncompressed bytes: the stream was cut after its first ${BUDGET} bytes`;
      assert.match(entry.analysis.extra.archive.truncated, new RegExp(cut));
      assert.match(entry.analysis.extra.loupe.truncated, new RegExp(cut));
      await assertSurvived(files);
    });
  }
});
