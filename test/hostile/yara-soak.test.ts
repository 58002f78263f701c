/**
 * Issue 27 M7, the short soak: 25 s of every hostile YARA shape from three addresses (runaway
 * loops, requests abandoned mid-flight) beside an ordinary scanner, against one real files
 * process. Every ordinary scan must answer correctly, health must say ready throughout, and the
 * pool must settle afterwards with nothing for its watchdog to mend. `./loupe bench yara` runs it 10 minutes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { json } from "../helpers/json.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { yaraSoak } from "./yara-soak.ts";

describe("a YARA soak against one files process", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({
      YARA_WORKERS: "2",
      SCAN_TIMEOUT_MS: "20000",
      RULES_COMPILE_TIMEOUT_MS: "3000",
    });
  });
  after(() => server.close());

  it("answers every ordinary scan correctly while hostile lanes run, and settles after", async (t) => {
    const report = await yaraSoak(server, 25_000, 3);
    t.diagnostic(
      `${report.ordinary} ordinary scans, ${report.hostile} hostile answers, ${report.abandoned} abandoned`,
    );
    assert.ok(report.ordinary > 0 && report.hostile > 0, JSON.stringify(report));
    assert.deepEqual(report.wrong, []);
    assert.deepEqual(report.unexpected, []);
    assert.deepEqual(report.unhealthy, []);
    let detail = "";
    for (let tries = 0; tries < 50; tries++) {
      detail = (await json(await fetch(`${server.url}/`))).engines.yara_native.detail;
      if (/\(0 busy, \d idle, 0 starting, 0 waiting\)/.test(detail)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(detail, /\(0 busy, \d idle, 0 starting, 0 waiting\)/);
    assert.doesNotMatch(detail, /watchdog/, "the pool's bookkeeping lost a process");
  });
});
