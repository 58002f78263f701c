/**
 * A processor's failure as its entry: once the client has gone (the request's signal fired), any
 * failure — a child's scratch file removed under a node analysis (ENOENT), a pool's AbortError —
 * is `aborted` and logs no error; the same failure while the client waits is `internal_error`,
 * logged. The soak (`./loupe bench soak`) met the first case as an error line in the service's log.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { createLogger } from "../../src/common/logger.ts";
import { entryOf } from "../../src/files/processors/entries.ts";
import type { Processor } from "../../src/files/processors/processor.ts";

const PROCESSOR = { name: "iocs", url: "/analyzer/iocs", description: "indicators" } as Processor;

/** A logger whose lines are kept, and the entry of a processor whose work throws `err`. */
async function failing(err: Error, signal: AbortSignal) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger("warn", "entries-test", sink);
  const entry = await entryOf(PROCESSOR, () => Promise.reject(err), { log, signal });
  return { entry, lines };
}

const enoent = () =>
  Object.assign(new Error("ENOENT: no such file or directory, open '/tmp/x.children/1'"), { code: "ENOENT" });

describe("a processor's failure as its entry", () => {
  it("is aborted, with nothing logged, once the client has gone", async () => {
    const gone = new AbortController();
    gone.abort();
    const { entry, lines } = await failing(enoent(), gone.signal);
    assert.deepEqual([entry.success, entry.error_short], [false, "aborted"]);
    assert.deepEqual(lines, []);
  });

  it("is an internal error, logged, while the client waits", async () => {
    const { entry, lines } = await failing(enoent(), new AbortController().signal);
    assert.deepEqual([entry.success, entry.error_short], [false, "internal_error"]);
    assert.equal(lines.length, 1);
    assert.match(lines[0] as string, /processor failed unexpectedly/);
  });

  it("reads a pool's AbortError as the client gone even before the signal is seen", async () => {
    const err = Object.assign(new Error("The task has been aborted"), { name: "AbortError" });
    const { entry, lines } = await failing(err, new AbortController().signal);
    assert.deepEqual([entry.error_short, lines], ["aborted", []]);
  });
});
