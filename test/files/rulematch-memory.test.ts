/**
 * Issue 27 L2 (files) against a real `./loupe files serve` process: after one 200 MB rule scan
 * (the WebAssembly build, which copies the file into a memory that never shrinks, beside the
 * thread's read buffer), the service's idle resident memory comes back within 1.5× its fresh idle.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { memoryOf } from "../helpers/process-memory.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";

const RULES = 'rule needle { strings: $a = "needle" condition: $a }';

async function scan(server: RealProcess, bytes: Uint8Array | string): Promise<void> {
  const body = await json(
    await postFile(`${server.url}/analyzer/rulematch`, bytes, "m.bin", { rules: RULES }),
  );
  assert.equal(body.processors.rulematch.success, true, JSON.stringify(body.processors.rulematch));
}

/** The resident MB once at most `atMost`, or once two readings 250 ms apart agree within 1 MB (40 readings at most). */
async function settledRss(pid: number, atMost = 0): Promise<number> {
  let rss = memoryOf(pid).rssMb;
  for (let i = 0; i < 40 && rss > atMost; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const next = memoryOf(pid).rssMb;
    const steady = Math.abs(next - rss) < 1;
    rss = next;
    if (steady && atMost === 0) break;
  }
  return rss;
}

describe("memory after a large rule scan", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({ YARA_WORKERS: "1" });
  });
  after(() => server.close());

  it("comes back within 1.5× the fresh idle resident memory", async (t) => {
    await scan(server, "a small needle"); // the thread, the engines and the rule cache as in service
    const fresh = await settledRss(server.pid);
    await scan(server, Buffer.alloc(200 * 1024 * 1024, 0x61));
    const afterwards = await settledRss(server.pid, 1.5 * fresh);
    t.diagnostic(`fresh idle ${fresh.toFixed(0)} MB, after a 200 MB scan ${afterwards.toFixed(0)} MB`);
    assert.ok(afterwards <= 1.5 * fresh, `${afterwards.toFixed(0)} MB against ${fresh.toFixed(0)} MB fresh`);
    await scan(server, "the needle again"); // and the next scan is answered by a fresh thread
  });
});
