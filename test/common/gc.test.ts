/**
 * FILES_GC_BUFFERS_IN_HEAP_LIMIT in real processes: dropping 400 MB of Buffers makes V8 collect its
 * whole heap every 64 MB by default, and far less often with the flag set at run time
 * (test/fixtures/gc/buffers.ts counts the full collections). The files service sets it at start
 * (src/cli/services.ts); its effect on a service under uploads is in docs/benchmarks.md.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const FIXTURE = new URL("../fixtures/gc/buffers.ts", import.meta.url).pathname;

async function fullCollections(mode: "on" | "off"): Promise<number> {
  const { stdout } = await run(process.execPath, [
    "--disable-warning=ExperimentalWarning",
    FIXTURE,
    mode,
    "400",
  ]);
  return (JSON.parse(stdout) as { majors: number }).majors;
}

describe("buffers counted in the heap limit", () => {
  it("runs fewer full collections for the same stream of dropped Buffers", async () => {
    const off = await fullCollections("off");
    const on = await fullCollections("on");
    assert.ok(off >= 2, `V8's default collected the whole heap ${off} times for 400 MB`);
    assert.ok(on < off, `with the flag: ${on} full collections, without: ${off}`);
  });
});

