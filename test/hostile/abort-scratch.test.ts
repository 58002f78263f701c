/**
 * A client that leaves while its upload's children are being written: once the process is idle,
 * its temp folder holds nothing of that upload — neither the temp file nor the children's scratch
 * folder, which the extraction process was still writing into when the request was cleaned up.
 * Against a real files process, with one extraction process, so the next extraction can only start
 * once the abandoned one has ended.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { listWhileRemoved, postFile } from "../helpers/files-server.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { storedZip } from "../helpers/zip.ts";

const MEMBERS = 6000;
const ROUNDS = 3;
/** Generous: a loaded machine is slow, and the wait ends as soon as the condition holds. */
const WAIT_MS = 120_000;

/** Polls `check` until it holds; fails with `what` if it never does. */
async function until(what: () => string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `never happened: ${what()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("a client that leaves mid-analysis (real process)", () => {
  let files: RealProcess;
  before(async () => {
    files = await startFilesProcess({ EXTRACT_WORKERS: "1", EXTRACT_MIN_PROCESSES: "1" });
  });
  after(async () => {
    await files?.close();
  });

  /** Everything under the process's own temp folder (`<pid>-<id>`): its uploads and their scratch folders. */
  const held = async (): Promise<string[]> => {
    const own = (await readdir(files.dir)).find((name) => name.startsWith(`${files.pid}-`));
    if (!own) return [];
    return (await listWhileRemoved(path.join(files.dir, own))).map((e) =>
      path.relative(path.join(files.dir, own), path.join(e.parentPath, e.name)),
    );
  };

  it("leaves nothing of the upload in FILES_TMP_DIR, its children's folder included", async () => {
    const members: Record<string, Buffer> = {};
    for (let i = 0; i < MEMBERS; i++) members[`m${i}.bin`] = randomBytes(4096);
    const zip = storedZip(members);
    for (let round = 0; round < ROUNDS; round++) {
      const client = new AbortController();
      const answer = postFile(`${files.url}/analyzer/extractor`, zip, "many.zip", {}, client.signal).then(
        (res) => res.text(),
        (err: unknown) => err,
      );
      // Leave while the walk writes the children out.
      await until(
        () => "children being written",
        async () => (await held()).some((p) => /\.children\/\d+$/.test(p.split(path.sep).join("/"))),
      );
      client.abort();
      await answer;
      // One extraction process: this one starts only once the abandoned one has ended.
      const next = await postFile(`${files.url}/analyzer/extractor`, "still here", "next.txt");
      assert.equal(next.status, 200);
      await next.text();
      let left: string[] = [];
      await until(
        () => `the temp folder emptied (left: ${left.slice(0, 5).join(", ")}…, ${left.length} in all)`,
        async () => {
          left = await held();
          return left.length === 0;
        },
      );
    }
  });
});
