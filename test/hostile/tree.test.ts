/**
 * Hostile trees against a real files process and a real clamd: 10,000 children, a nest 50 deep
 * with EICAR at the bottom, a child that is itself a bomb. Each is bounded by the upload's one
 * budget (the nodes past it are reported, the verdict is `incomplete`, never `clean`), and the
 * same process then finds EICAR in an ordinary password-protected zip.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EICAR, startTestClamd } from "../helpers/clamd.ts";
import { postFile } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { encryptedZip } from "../helpers/sevenzip.ts";
import { storedZip } from "../helpers/zip.ts";
import { zipOfZips } from "./extract-cases.ts";

const ENTRIES = 500;

describe("hostile trees: one budget per upload", { skip: skipUnlessCommands("clamd", "zip") }, () => {
  let clamd: Awaited<ReturnType<typeof startTestClamd>>;
  let files: RealProcess;
  let ordinary: Buffer;
  before(async () => {
    clamd = await startTestClamd();
    [files, ordinary] = await Promise.all([
      startFilesProcess({
        CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
        EXTRACT_MAX_ARCHIVE_ENTRIES: String(ENTRIES),
        EXTRACT_MAX_ARCHIVE_BYTES: "50000000",
        EXTRACT_WORKERS: "1",
      }),
      encryptedZip({ "eicar.com": EICAR }, { password: "infected", method: "zipcrypto" }),
    ]);
  });
  after(async () => {
    await files?.close();
    await clamd?.stop();
  });

  const all = async (bytes: Buffer, name: string) => {
    const res = await postFile(`${files.url}/analyzer/all`, bytes, name);
    assert.equal(res.status, 200);
    return json(res);
  };

  /** The same process still answers, and still finds EICAR behind a listed password. */
  async function stillDetects(): Promise<void> {
    await assertSurvived(files);
    const body = await all(ordinary, "ordinary.zip");
    assert.equal(body.verdict.level, "malicious");
    assert.equal(
      body.processors.antivirus.analysis.description,
      "Loupe.Test.EICAR.UNOFFICIAL in ordinary.zip › eicar.com",
    );
  }

  it("10,000 children: the first ones are nodes, the archive says which limit stopped the rest", async () => {
    const members: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) members[`m${i}.txt`] = `member ${i}`;
    const body = await all(storedZip(members), "wide.zip");
    const nodes: Json[] = body.processors.extractor.analysis.extra.tree.nodes;
    assert.ok(nodes.length <= ENTRIES + 1, `${nodes.length} nodes`);
    assert.deepEqual([nodes[0].status, nodes[0].budget], ["limit", "entries"]);
    assert.equal(body.verdict.level, "incomplete");
    assert.ok(
      body.processors.antivirus.analysis.extra.not_scanned.some((n: Json) => n.path === "wide.zip"),
      "the antivirus says the archive was not scanned whole",
    );
    await stillDetects();
  });

  it("a nest 50 deep with EICAR at the bottom is incomplete at the depth limit, never clean", async () => {
    let nest: Buffer = EICAR;
    for (let i = 50; i > 0; i--) nest = storedZip({ [i === 50 ? "eicar.com" : `level-${i + 1}.zip`]: nest });
    const body = await all(nest, "level-1.zip");
    assert.notEqual(body.verdict.level, "clean");
    const limited = body.processors.extractor.analysis.extra.tree.nodes.filter(
      (n: Json) => n.status === "limit",
    );
    assert.ok(limited.length > 0 && limited.every((n: Json) => n.budget === "depth"));
    await stillDetects();
  });

  it("a child that is itself a bomb stops at the bytes budget, is reported, and the rest is analysed", async () => {
    const bytes = storedZip({ "bomb.zip": zipOfZips(4, 40), "note.txt": "an ordinary note" });
    const body = await all(bytes, "carrier.zip");
    const nodes: Json[] = body.processors.extractor.analysis.extra.tree.nodes;
    assert.ok(
      nodes.some((n) => n.status === "limit" && n.budget === "bytes"),
      JSON.stringify(nodes.map((n) => [n.path, n.status, n.budget])),
    );
    assert.equal(nodes.find((n) => n.name === "note.txt")?.status, "analysed");
    assert.equal(body.verdict.level, "incomplete");
    await stillDetects();
  });
});
