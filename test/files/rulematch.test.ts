import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";

const RULES = `
rule demo : spyware android {
  meta:
    author = "loupe"
    score = 7
    active = true
  strings:
    $text = "pegasus"
    $hex = { 50 4B ?? 04 }
    $wide = "cfg" wide
    $bin = { 00 FF 00 }
  condition:
    any of them
}
rule never { condition: false }
`;

describe("POST /analyzer/rulematch", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({
      YARA_WORKERS: "1",
      SCAN_TIMEOUT_MS: "3000",
      RULE_PLAINTEXT_MAX: "8",
      MAX_FORM_FIELD_SIZE: "200000",
    });
  });
  after(() => server.close());

  const scan = (bytes: Uint8Array | string, rules?: string) =>
    postFile(`${server.url}/analyzer/rulematch`, bytes, "sample.bin", rules === undefined ? {} : { rules });

  it("returns matches with rule, tags, namespace, typed meta, strings and instances", async () => {
    const file = Buffer.concat([
      Buffer.from("xx pegasus PK\u0003\u0004 "),
      Buffer.from("cfg", "utf16le"),
      Buffer.from([0x00, 0xff, 0x00]),
      Buffer.from("pegasus"),
    ]);
    const res = await scan(file, RULES);
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.success, true);
    assert.equal(body.content, null);
    const entry = body.processors.rulematch;
    assert.equal(entry.success, true);
    // FormData sends text fields with CRLF line ends, as browsers do; the source comes back as received.
    assert.equal(entry.analysis.rules.replaceAll("\r\n", "\n"), RULES);
    assert.equal(entry.analysis.matches.length, 1);
    const [m] = entry.analysis.matches;
    assert.equal(m.rule, "demo");
    assert.deepEqual(m.tags, ["spyware", "android"]);
    assert.equal(m.namespace, "default");
    assert.deepEqual(m.meta, { author: "loupe", score: 7, active: true });
    const byId = Object.fromEntries(m.strings.map((s: { identifier: string }) => [s.identifier, s]));
    assert.deepEqual(byId.$text.instances, [
      { offset: 3, matched_length: 7, plaintext: "pegasus" },
      { offset: 25, matched_length: 7, plaintext: "pegasus" },
    ]);
    assert.deepEqual(byId.$hex.instances, [{ offset: 11, matched_length: 4, plaintext: "PK\\x03\\x04" }]);
    assert.deepEqual(byId.$wide.instances, [
      { offset: 16, matched_length: 6, plaintext: "c\\x00f\\x00g\\x00" },
    ]);
    assert.deepEqual(byId.$bin.instances, [{ offset: 22, matched_length: 3, plaintext: "\\x00\\xff\\x00" }]);
  });

  it("caps the plaintext of long matches", async () => {
    const res = await scan(
      "0123456789abcdef",
      'rule long { strings: $a = "0123456789abcdef" condition: $a }',
    );
    const inst = (await json(res)).processors.rulematch.analysis.matches[0].strings[0].instances[0];
    assert.equal(inst.matched_length, 16);
    assert.equal(inst.plaintext, "01234567…");
  });

  it("answers 400 no_rules for missing, empty or blank rules", async () => {
    for (const rules of [undefined, "", "  \n\t "]) {
      const res = await scan("data", rules);
      assert.equal(res.status, 400);
      const body = await json(res);
      assert.equal(body.code, "no_rules");
      assert.match(body.detail, /rules/);
    }
  });

  it("answers 400 invalid_rules with the engine's message, line and column", async () => {
    const res = await scan("data", "rule ok { condition: true }\nrule broken {\n  condition: $missing\n}");
    assert.equal(res.status, 400);
    const body = await json(res);
    assert.equal(body.code, "invalid_rules");
    assert.match(body.detail, /line:3:14/);
    assert.match(body.detail, /\$missing/);
  });

  it("reports compiler warnings and skips compilation for a repeated rule set", async () => {
    const rules = `rule warn { strings: $a = { 00 ?? } condition: $a and 2 > 1 } // ${Date.now()}`;
    const first = (await json(await scan("a\u0000b", rules))).processors.rulematch.metadata;
    const second = (await json(await scan("a\u0000b", rules))).processors.rulematch.metadata;
    assert.equal(first.rules_cached, false);
    assert.equal(second.rules_cached, true);
    assert.equal(second.compile_ms, 0);
    assert.ok(Array.isArray(first.warnings));
  });

  it("stops a runaway scan at SCAN_TIMEOUT_MS, reports a timeout and keeps serving", async () => {
    const slow = "rule slow { strings: $r = /a.*b.*c/ condition: #r > 0 }";
    const started = performance.now();
    const res = await scan("a".repeat(2_000_000), slow);
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.success, false);
    assert.equal(body.error_short, "timeout");
    assert.equal(body.processors.rulematch.error_short, "timeout");
    assert.ok(performance.now() - started < 20_000);
    const after = await scan("pegasus", RULES);
    assert.equal(
      (await json(after)).processors.rulematch.analysis.matches[0].rule,
      "demo",
      "a fresh worker scans",
    );
  });

  it("keeps answering other requests while a long scan runs", async () => {
    const slow = scan("a".repeat(2_000_000), "rule slow2 { strings: $r = /a.*b.*d/ condition: #r > 0 }");
    await new Promise((r) => setTimeout(r, 200));
    const started = performance.now();
    const health = await fetch(`${server.url}/`);
    assert.equal(health.status, 200);
    const healthMs = performance.now() - started;
    await (await slow).arrayBuffer();
    assert.ok(healthMs < 2000, `health answered in ${healthMs} ms during a scan`);
  });

  it("compiles and matches correctly at the nesting limit, and refuses one level more with a 400", async () => {
    const atLimit = [
      `rule deep { condition: ${"(".repeat(63)}true${")".repeat(63)} }`,
      `rule deep { condition: ${"not ".repeat(62)}true }`,
    ];
    for (const rules of atLimit) {
      const body = await json(await scan("x", rules));
      assert.deepEqual(
        body.processors.rulematch.analysis.matches.map((m: { rule: string }) => m.rule),
        ["deep"],
      );
    }
    const res = await scan("x", `rule deep { condition: ${"(".repeat(64)}true${")".repeat(64)} }`);
    assert.equal(res.status, 400);
    const body = await json(res);
    assert.equal(body.code, "rules_too_complex");
    assert.match(body.detail, /RULES_MAX_DEPTH/);
  });

  it("refuses modules outside RULES_MODULES with a 400", async () => {
    const res = await scan("x", 'import "console" rule a { condition: console.log("hi") }');
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "module_not_allowed");
  });

  it("reports the engine in the health check", async () => {
    const body = await json(await fetch(`${server.url}/`));
    assert.equal(body.engines.yara.ready, true);
    assert.match(body.engines.yara.version, /^yara-x \d+\.\d+/);
  });
});

describe("rulematch with the console module allowed", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ RULES_MODULES: "console", RULES_CONSOLE_MAX_CHARS: "100" });
  });
  after(() => server.close());

  it("puts console output in the result, capped, and never on the service's output", async () => {
    const forged = String.raw`\n{\"level\":60,\"msg\":\"forged\"}`;
    const rules = `import "console" rule talk { condition: console.log("${forged}") and for all i in (0..60) : (console.log(i)) }`;
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
    let body: Json;
    try {
      body = await json(await postFile(`${server.url}/analyzer/rulematch`, "x", "x.bin", { rules }));
      await new Promise((r) => setTimeout(r, 100)); // worker output reaches the main thread asynchronously
    } finally {
      process.stdout.write = write;
    }
    assert.ok(!written.join("").includes("forged"), "console output reached the service's stdout");
    const meta = body.processors.rulematch.metadata;
    assert.deepEqual(
      body.processors.rulematch.analysis.matches.map((m: { rule: string }) => m.rule),
      ["talk"],
    );
    assert.match(meta.console[0], /"level":60,"msg":"forged"/);
    assert.equal(meta.console_truncated, true);
    assert.ok(meta.console.join("\n").length <= 100 + meta.console.length);
  });
});

describe("rulematch compile budget", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ YARA_WORKERS: "1", RULES_COMPILE_TIMEOUT_MS: "2000" });
  });
  after(() => server.close());

  it("stops a compile past RULES_COMPILE_TIMEOUT_MS with a timeout entry, then compiles small rules", async () => {
    // Wide bounded repetitions make YARA-X compile for seconds (about 7 s alone for these 8000 rules on the reference machine).
    const slow = Array.from(
      { length: 8000 },
      (_, i) => `rule r${i} { strings: $a = /x${i}[a-z]{100,1000}y/ condition: $a }`,
    ).join("\n");
    const body = await json(
      await postFile(`${server.url}/analyzer/rulematch`, "x", "x.bin", { rules: slow }),
    );
    assert.equal(body.processors.rulematch.error_short, "timeout");
    assert.match(body.processors.rulematch.error, /RULES_COMPILE_TIMEOUT_MS/);
    const after = await json(
      await postFile(`${server.url}/analyzer/rulematch`, "x", "x.bin", {
        rules: "rule ok { condition: true }",
      }),
    );
    assert.deepEqual(
      after.processors.rulematch.analysis.matches.map((m: { rule: string }) => m.rule),
      ["ok"],
    );
  });
});
