/**
 * Issue 27 M3 against a real `./loupe files serve` process: runaway YARA loops end at their scan
 * budget (not SCAN_TIMEOUT_MS), and one client (remote address) looping them holds only its
 * share of the scan workers — another client's ordinary scan answers while they still run.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { json } from "../helpers/json.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { FILE_BOUNDED_LOOP, LOOP_FILE, ORDINARY_FILE, ORDINARY_RULES } from "./yara-cases.ts";
import { clientFrom } from "./yara-clients.ts";
import { busyNativeChildren } from "./yara-processes.ts";

const rulematch = (server: RealProcess) => `${server.url}/analyzer/rulematch`;
type Entry = { success: boolean; error: string | null; error_short: string | null; analysis: unknown };
const entryOf = (body: Record<string, unknown>) =>
  (body.processors as Record<string, Entry>).rulematch as Entry;

describe("a runaway loop bounded by the file", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({ YARA_WORKERS: "1", SCAN_TIMEOUT_MS: "60000" });
  });
  after(() => server.close());

  it("ends at its scan budget, far under SCAN_TIMEOUT_MS, and says which setting stopped it", async () => {
    const client = clientFrom("127.0.0.1");
    try {
      const { status, body } = await client.post(rulematch(server), LOOP_FILE, { rules: FILE_BOUNDED_LOOP });
      assert.equal(status, 200);
      const entry = entryOf(body);
      assert.equal(entry.error_short, "timeout");
      assert.match(
        entry.error ?? "",
        /within 2000 ms, its budget for this file \(FILES_RULES_SCAN_BUDGET_MS/,
      );
    } finally {
      await client.close();
    }
  });
});

describe("one client looping runaway rules", () => {
  let server: RealProcess;
  before(async () => {
    // Budgets long enough that the loops still run while the other client is answered.
    server = await startFilesProcess({
      YARA_WORKERS: "2",
      SCAN_TIMEOUT_MS: "60000",
      RULES_SCAN_BUDGET_MS: "30000",
    });
  });
  after(() => server.close());

  it("holds one of two workers (RULES_CLIENT_SHARE=50): another client's scan answers meanwhile", async () => {
    const hostile = clientFrom("127.0.0.2");
    const ordinary = clientFrom("127.0.0.3");
    const stop = new AbortController();
    const pending = new Set<number>();
    const loops = [0, 1, 2].map((i) => {
      pending.add(i);
      return hostile
        .post(rulematch(server), LOOP_FILE, { rules: FILE_BOUNDED_LOOP }, stop.signal)
        .catch(() => undefined)
        .finally(() => pending.delete(i));
    });
    try {
      while ((await busyNativeChildren(server.pid)) === 0) {
        assert.equal(pending.size, 3, "a runaway loop answered before it ran");
      }
      await new Promise((r) => setTimeout(r, 500)); // the other loops reach the service too
      const { status, body } = await ordinary.post(rulematch(server), ORDINARY_FILE, {
        rules: ORDINARY_RULES,
      });
      assert.equal(status, 200);
      assert.equal(entryOf(body).success, true, JSON.stringify(entryOf(body)));
      assert.equal(pending.size, 3, "the ordinary scan waited for a runaway loop to end");
      const share = (await json(await fetch(`${server.url}/`))).engines.yara_share;
      assert.match(share.detail, /2 YARA scans at once, 1 per client.*[1-9]\d* scans waited/);
    } finally {
      stop.abort();
      await Promise.all(loops);
      await Promise.all([hostile.close(), ordinary.close()]);
    }
  });
});
