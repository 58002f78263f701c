/**
 * Hostile YARA rules against a real `./loupe files serve` process: each answer is a 400 or an
 * entry error, the same PID keeps serving, an ordinary scan right after succeeds, and health is truthful.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { ORDINARY_FILE, ORDINARY_RULES, parens, YARA_CASES } from "./yara-cases.ts";

async function outcome(res: Response): Promise<string> {
  const body = await json(res);
  if (res.status === 400) {
    assert.equal(typeof body.detail, "string");
    return `400:${body.code}`;
  }
  assert.equal(res.status, 200, JSON.stringify(body));
  const entry = body.processors.rulematch;
  return `200:${entry.success ? "ok" : entry.error_short}`;
}

const scan = (server: RealProcess, rules: string, file: Uint8Array | string) =>
  postFile(`${server.url}/analyzer/rulematch`, file, "h.bin", { rules });

/** An ordinary scan answers its match: the engine works after the attack. */
async function ordinaryScan(server: RealProcess): Promise<Response> {
  const res = await postFile(`${server.url}/analyzer/rulematch`, ORDINARY_FILE, "probe.txt", {
    rules: ORDINARY_RULES,
  });
  const body = await json(res.clone());
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.processors.rulematch.success, true, JSON.stringify(body.processors.rulematch));
  assert.deepEqual(
    body.processors.rulematch.analysis.matches.map((m: { rule: string }) => m.rule),
    ["ordinary"],
  );
  return res;
}

describe("hostile YARA rules against a real files process", () => {
  let server: RealProcess;
  before(async () => {
    // One worker: a broken worker would be the one serving the next scan.
    server = await startFilesProcess({
      YARA_WORKERS: "1",
      SCAN_TIMEOUT_MS: "5000",
      RULES_COMPILE_TIMEOUT_MS: "3000",
    });
  });
  after(() => server.close());

  for (const c of YARA_CASES) {
    it(c.name, async (t) => {
      const got = await outcome(await scan(server, c.rules, c.file ?? "hostile sample"));
      t.diagnostic(got);
      assert.ok(c.accept.includes(got), `${c.name} answered ${got}, expected one of ${c.accept.join(", ")}`);
      await assertSurvived(server, () => ordinaryScan(server));
      const health = await json(await fetch(`${server.url}/`));
      assert.equal(health.engines.yara.ready, true, JSON.stringify(health.engines.yara));
    });
  }
});

describe("an engine fault retires its worker (source limits raised so the rule reaches YARA-X)", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({ YARA_WORKERS: "1", RULES_MAX_DEPTH: "100000" });
  });
  after(() => server.close());

  it("answers engine_error for that request only, replaces the worker and says so in health", async () => {
    const got = await outcome(await scan(server, parens(7000), "x"));
    assert.equal(got, "200:engine_error");
    await assertSurvived(server, () => ordinaryScan(server));
    const yara = (await json(await fetch(`${server.url}/`))).engines.yara;
    assert.equal(yara.ready, true);
    assert.equal(yara.retired_workers, 1);
    assert.match(yara.detail, /retired .* after: RangeError|retired .* after: RuntimeError/);
    // A second fault is counted too, and the pool still serves.
    assert.equal(
      await outcome(await scan(server, `rule a { condition: ${"not ".repeat(1000)}true }`, "x")),
      "200:engine_error",
    );
    await ordinaryScan(server);
    assert.equal((await json(await fetch(`${server.url}/`))).engines.yara.retired_workers, 2);
  });
});
