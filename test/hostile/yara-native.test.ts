/**
 * The native YARA-X engine against a real `./loupe files serve` process: a native scan past
 * SCAN_TIMEOUT_MS is killed (a real timeout), a native process killed mid-scan costs nothing but
 * time (the WebAssembly build answers that request, health counts the crash), and a source the
 * WebAssembly build refuses never reaches native code. The same PID serves throughout.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { ORDINARY_FILE, ORDINARY_RULES, parens } from "./yara-cases.ts";
import { cpuTicks, nativeChildren } from "./yara-processes.ts";

/** A regex tried at every byte of a run of "a" (60 bytes each time, never matching): ≈ 6 s per MB natively. */
const SLOW_RULES = "rule slow { strings: $r = /a[^b]{0,60}b/ condition: $r }";
const slowFile = (bytes: number) => Buffer.alloc(bytes, "a");

const scan = (server: RealProcess, rules: string, file: Uint8Array | string) =>
  postFile(`${server.url}/analyzer/rulematch`, file, "n.bin", { rules });

async function entryOf(res: Response): Promise<Json> {
  const body = await json(res);
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.processors.rulematch;
}

async function nativeHealth(server: RealProcess): Promise<Json> {
  return (await json(await fetch(`${server.url}/`))).engines.yara_native;
}

/**
 * An ordinary scan, answered natively (health's count goes up by one) once a native process is
 * ready: while none is (a replacement booting), an ordinary client's scan goes to WebAssembly.
 */
async function ordinaryNativeScan(server: RealProcess): Promise<Response> {
  const count = async () =>
    Number(/(\d+) scans answered natively/.exec((await nativeHealth(server)).detail)?.[1]);
  for (;;) {
    const detail: string = (await nativeHealth(server)).detail;
    if (!/ busy, /.test(detail) || / [1-9]\d* idle/.test(detail)) break; // not started yet, or ready
    await new Promise((r) => setTimeout(r, 100));
  }
  const before = await count();
  const res = await scan(server, ORDINARY_RULES, ORDINARY_FILE);
  const entry = await entryOf(res.clone());
  assert.deepEqual(
    entry.analysis.matches.map((m: { rule: string }) => m.rule),
    ["ordinary"],
  );
  assert.equal(await count(), before + 1, "answered by the native engine");
  return res;
}

/** The native scan process the service started (the first if several). */
async function nativeChild(serverPid: number): Promise<number | undefined> {
  return (await nativeChildren(serverPid))[0];
}

describe("the native YARA-X engine in a real files process", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({
      YARA_WORKERS: "1",
      RULES_MAX_DEPTH: "100000",
      SCAN_TIMEOUT_MS: "60000",
      RULES_SCAN_BUDGET_MS: "60000", // the slow scans here must run until the test kills them
    });
  });
  after(() => server.close());

  it("never hands a source the WebAssembly build refuses to native code", async () => {
    await ordinaryNativeScan(server);
    const entry = await entryOf(await scan(server, parens(7000), "x"));
    assert.equal(entry.error_short, "engine_error");
    const health = await nativeHealth(server);
    assert.equal(health.retired_workers, 0);
    await assertSurvived(server, () => ordinaryNativeScan(server));
  });

  it("answers from the WebAssembly build when the native process dies mid-scan, and counts it", async () => {
    await ordinaryNativeScan(server);
    const pid = await nativeChild(server.pid);
    assert.ok(pid, "a native scan process runs");
    const start = (await cpuTicks(pid)) ?? 0;
    const pending = scan(server, SLOW_RULES, slowFile(200_000));
    // Killed once it has been scanning for a while (10 ticks of CPU), like a native fault would.
    while (((await cpuTicks(pid)) ?? Number.POSITIVE_INFINITY) - start < 10)
      await new Promise((r) => setTimeout(r, 20));
    process.kill(pid, "SIGSEGV");
    const entry = await entryOf(await pending);
    assert.equal(entry.success, true, JSON.stringify(entry.error));
    assert.deepEqual(entry.analysis.matches, []);
    const health = await nativeHealth(server);
    assert.equal(health.retired_workers, 1);
    assert.match(health.detail, /last crash at .*SIGSEGV/);
    await assertSurvived(server, () => ordinaryNativeScan(server));
  });
});

describe("a native scan past SCAN_TIMEOUT_MS", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({
      YARA_WORKERS: "1",
      SCAN_TIMEOUT_MS: "2000",
      RULES_NATIVE_MAX_BYTES: "10000000",
    });
  });
  after(() => server.close());

  it("is killed and answers timeout; the next scan gets a fresh process", async () => {
    await ordinaryNativeScan(server);
    // 8 MB: about 26 s of native scanning on the development machine, far past the 2 s limit on any machine.
    const entry = await entryOf(await scan(server, SLOW_RULES, slowFile(8_000_000)));
    assert.equal(entry.error_short, "timeout");
    assert.match(entry.error, /did not finish within 2000 ms/);
    assert.equal((await nativeHealth(server)).retired_workers, 0, "a timeout is not a crash");
    await assertSurvived(server, () => ordinaryNativeScan(server));
  });
});
