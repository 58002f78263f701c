/**
 * Issue 27 M7 against a real `./loupe files serve` process: the native scan pool must never lose
 * a process. The interleavings that wedged it: a runaway scan is killed while another scan waits
 * for a process, and that waiting scan ends (its own deadline, or its client goes away) while the
 * replacement boots — the replacement was promised to it, and nobody ever used it again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { json } from "../helpers/json.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { FILE_BOUNDED_LOOP, LOOP_FILE, ORDINARY_FILE, ORDINARY_RULES } from "./yara-cases.ts";
import { clientFrom } from "./yara-clients.ts";
import { busyNativeChildren } from "./yara-processes.ts";

type Entry = { success: boolean; error_short: string | null; analysis: { matches: Array<{ rule: string }> } };
const entryOf = (body: Record<string, unknown>) =>
  (body.processors as Record<string, Entry>).rulematch as Entry;

async function scanFrom(
  server: RealProcess,
  from: string,
  rules: string,
  file: Uint8Array | string,
  signal?: AbortSignal,
) {
  const client = clientFrom(from);
  try {
    return entryOf((await client.post(`${server.url}/analyzer/rulematch`, file, { rules }, signal)).body);
  } finally {
    await client.close();
  }
}

/** The pool still serves: an ordinary scan matches, nothing waits, and the watchdog had nothing to mend. */
async function assertPoolWhole(server: RealProcess): Promise<void> {
  const next = await scanFrom(server, "127.0.0.9", ORDINARY_RULES, ORDINARY_FILE);
  assert.equal(next.success, true, `the pool lost its process: ${JSON.stringify(next)}`);
  assert.deepEqual(
    next.analysis.matches.map((m) => m.rule),
    ["ordinary"],
  );
  // A light client's scan may be answered by the WebAssembly build while the replacement boots:
  // the pool is whole once that process is up and idle (read until then, within a bound).
  const whole = /1 of 1 native scan processes started \(0 busy, 1 idle, 0 starting, 0 waiting\)/;
  let native = (await json(await fetch(`${server.url}/`))).engines.yara_native;
  for (let tries = 0; !whole.test(native.detail) && tries < 120; tries++) {
    await new Promise((r) => setTimeout(r, 250));
    native = (await json(await fetch(`${server.url}/`))).engines.yara_native;
  }
  assert.equal(native.ready, true);
  assert.match(native.detail, whole);
  assert.doesNotMatch(native.detail, /watchdog/, "the bookkeeping itself lost a process");
}

describe("the native scan pool when waiting scans end while their process is replaced", () => {
  let server: RealProcess;
  before(async () => {
    // One process, and a deadline that falls for the waiting scans while the first one's replacement boots.
    server = await startFilesProcess({
      YARA_WORKERS: "1",
      SCAN_TIMEOUT_MS: "3000",
      RULES_CLIENT_SHARE: "100",
    });
  });
  after(() => server.close());

  it("four runaway loops from four clients at once: each ends, the pool keeps its process", async () => {
    assert.equal((await scanFrom(server, "127.0.0.9", ORDINARY_RULES, ORDINARY_FILE)).success, true);
    const loops = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"].map((from) =>
      scanFrom(server, from, FILE_BOUNDED_LOOP, LOOP_FILE),
    );
    for (const entry of await Promise.all(loops)) assert.equal(entry.error_short, "timeout");
    await assertPoolWhole(server);
  });
});

describe("the native scan pool when a waiting client leaves while its process is replaced", () => {
  let server: RealProcess;
  before(async () => {
    // The runaway ends at its budget; the waiting scan's own deadline is far: only its client ends it.
    server = await startFilesProcess({
      YARA_WORKERS: "1",
      SCAN_TIMEOUT_MS: "30000",
      RULES_SCAN_BUDGET_MS: "1500",
    });
  });
  after(() => server.close());

  it("a waiting client goes away just as the runaway before it is killed", async () => {
    const loop = scanFrom(server, "127.0.0.2", FILE_BOUNDED_LOOP, LOOP_FILE);
    for (let tries = 0; (await busyNativeChildren(server.pid)) === 0; tries++) {
      assert.ok(tries < 50, "the runaway scan never ran");
    }
    const leaving = new AbortController();
    const waiting = scanFrom(server, "127.0.0.3", ORDINARY_RULES, ORDINARY_FILE, leaving.signal).catch(
      () => "gone",
    );
    assert.equal((await loop).error_short, "timeout");
    leaving.abort(); // the runaway's process was just killed: its replacement boots
    // On a loaded machine the replacement may be ready first, and the waiting scan answered.
    const left = await waiting;
    assert.ok(typeof left === "string" || left.success, JSON.stringify(left));
    await assertPoolWhole(server);
  });
});
