/**
 * Many files in few clamd scans (clamd/batch.ts), against a real clamd: a clean batch is one scan,
 * a flagged batch is split until the detection names its file, and the stored zip made as the
 * files are read carries every byte (a signature at the end of a member of several read chunks).
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { type BatchFile, scanFiles } from "../../src/files/clamd/batch.ts";
import { EICAR, LOUPE_MARKER, suiteClamdAndFolder } from "../helpers/clamd.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

describe("clamd batches of many files", { skip: skipUnlessCommands("clamd") }, () => {
  const suite = suiteClamdAndFolder(30_000_000);

  /** `count` distinct clean files; `special` replaces the bytes of the files it names. */
  const files = async (count: number, special: Record<number, Buffer> = {}): Promise<BatchFile[]> => {
    const out: BatchFile[] = [];
    for (let i = 0; i < count; i++) {
      const bytes = special[i] ?? Buffer.from(`file ${i}: ${"ordinary words ".repeat(100 + i)}`);
      const file = path.join(suite.dir, `${count}-${i}-${Object.keys(special).join("")}.bin`);
      await writeFile(file, bytes);
      out.push({ key: `f${i}`, path: file, size: bytes.length });
    }
    return out;
  };
  const scan = (batch: BatchFile[]) =>
    scanFiles(suite.clamd.address, batch, {
      timeoutMs: 20_000,
      batchBytes: 20_000_000,
      deadline: Date.now() + 60_000,
    });

  it("scans a clean batch of 40 files in one scan", async () => {
    assert.deepEqual(await scan(await files(40)), { detections: [], unscanned: [], scans: 1 });
  });

  it("names the one file of 40 that holds EICAR, after splitting the batch", async () => {
    const result = await scan(await files(40, { 23: EICAR }));
    assert.deepEqual(result.detections, [{ key: "f23", signature: "Loupe.Test.EICAR.UNOFFICIAL" }]);
    assert.deepEqual(result.unscanned, []);
    assert.ok(result.scans > 1 && result.scans <= 2 * Math.ceil(Math.log2(40)) + 1, `${result.scans} scans`);
  });

  it("finds a signature at the end of a member read in several chunks", async () => {
    const big = Buffer.concat([Buffer.alloc(3 * 1024 * 1024 + 17, 0x41), LOUPE_MARKER, Buffer.alloc(5)]);
    const result = await scan(await files(6, { 4: big }));
    assert.deepEqual(result.detections, [{ key: "f4", signature: "Loupe.Test.Marker.UNOFFICIAL" }]);
  });
});
