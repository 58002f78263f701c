/**
 * A TypeScript client generated from the files service's own /openapi.json (openapi-typescript-codegen,
 * services per tag as openapi-generator makes them) calls every operation against a real server.
 * The driver (openapi-client-driver.ts.txt: not part of the project's build, it imports generated
 * code) is type-checked strictly with the generated client by tsc before it runs.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import sharp from "sharp";
import { startTestClamd } from "../helpers/clamd.ts";
import { startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const CODEGEN = path.join(
  path.dirname(require.resolve("openapi-typescript-codegen/package.json")),
  "bin/index.js",
);
const TSC = path.join(path.dirname(require.resolve("typescript/package.json")), "bin/tsc");
const RULES = 'rule spy { strings: $a = "pegasus" condition: $a }';

/** Mandolin's operations as its document names them (and mandolin-python-client's methods). */
const MANDOLIN_OPERATIONS = [
  ["post", "/analyzer/tika", "analyze_with_tika_analyzer_tika_post", "analyzers"],
  ["post", "/analyzer/yara", "analyze_with_yara_analyzer_yara_post", "analyzers"],
  ["post", "/converter/thumbnail", "generate_thumbnail_converter_thumbnail_post", "converters"],
  ["get", "/", "root__get", undefined],
] as const;
/** Its component schemas (the client's models: Analysis_TikaResult_ → AnalysisTikaResult). */
const MANDOLIN_COMPONENTS = [
  "Analysis_TikaResult_",
  "AnalyzerResult_TikaResult_",
  "TikaResult",
  "Analysis_YaraResult_",
  "AnalyzerResult_YaraResult_",
  "YaraResult",
  "Body_analyze_with_tika_analyzer_tika_post",
  "Body_analyze_with_yara_analyzer_yara_post",
  "YaraMatch",
  "YaraString",
  "YaraStringInstance",
  "ThumbnailStrategy",
];

describe("a client generated from /openapi.json", { skip: skipUnlessCommands("clamd") }, () => {
  let server: TestFilesServer;
  let clamd: Awaited<ReturnType<typeof startTestClamd>>;
  let dir: string;
  // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read loosely.
  let spec: any;
  before(async () => {
    clamd = await startTestClamd();
    server = await startFilesServer({ CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "" });
    dir = await mkdtemp(path.join(os.tmpdir(), "loupe-openapi-client-"));
    spec = await json(await fetch(`${server.url}/openapi.json`));
  });
  after(async () => {
    await server.close();
    await clamd.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("names Mandolin's operations, tags and models as Mandolin's document does", () => {
    for (const [method, route, operationId, tag] of MANDOLIN_OPERATIONS) {
      const op = spec.paths[route]?.[method];
      assert.equal(op?.operationId, operationId, `${method} ${route}`);
      assert.deepEqual(op.tags, tag ? [tag] : undefined, `${method} ${route} tags`);
    }
    for (const name of MANDOLIN_COMPONENTS) assert.ok(spec.components.schemas[name], `component ${name}`);
    const yaraBody = spec.components.schemas.Body_analyze_with_yara_analyzer_yara_post;
    assert.deepEqual(yaraBody.required, ["file", "rules"]);
    const ids = Object.values(spec.paths).flatMap((p) =>
      Object.values(p as object).map((o) => o.operationId),
    );
    assert.equal(new Set(ids).size, ids.length, "operation ids are unique");
    assert.ok(
      ids.every((id) => typeof id === "string"),
      "every operation has an id",
    );
  });

  it("generates, type-checks and calls every operation", async () => {
    await writeFile(path.join(dir, "openapi.json"), JSON.stringify(spec));
    // The generator writes only below its working folder.
    await run(
      process.execPath,
      [CODEGEN, "-i", "openapi.json", "-o", "gen", "-c", "fetch", "--useUnionTypes"],
      {
        cwd: dir,
      },
    );
    const driver = await readFile(new URL("./openapi-client-driver.ts.txt", import.meta.url), "utf8");
    await writeFile(path.join(dir, "driver.ts"), driver);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        module: "commonjs",
        moduleResolution: "bundler",
        target: "es2022",
        lib: ["es2023", "dom"],
        types: [],
        outDir: "out",
      },
      files: ["driver.ts"],
    };
    await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
    await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir }).catch((err) => {
      assert.fail(`the generated client does not type-check:\n${err.stdout}${err.stderr}`);
    });
    await writeFile(path.join(dir, "out/package.json"), '{"type":"commonjs"}');
    const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: "#224466" } })
      .png()
      .toBuffer();
    const { run: callAll } = require(path.join(dir, "out/driver.js"));
    const results = await callAll(server.url, Buffer.from("field notes: pegasus seen\n"), png, RULES);

    assert.deepEqual(results.tika, { content: "field notes: pegasus seen", title: null, type: "text/plain" });
    assert.deepEqual(results.yara, { success: true, rules: RULES, matched: ["spy"], at: 13 });
    assert.deepEqual(results.extractor, { content: "field notes: pegasus seen", type: "text/plain" });
    assert.deepEqual(results.rulematch, ["spy"]);
    assert.equal(results.antivirus, false);
    // This generator reads every non-JSON answer as text: the PNG arrives, decoded as a string.
    assert.equal(results.thumbnail, `\ufffdPNG\r\n${String.fromCharCode(0x1a)}\n`);
    assert.equal(results.health, "ok");
    assert.equal(results.refused.status, 400);
    assert.equal(results.refused.body.code, "invalid_rules");
  });
});
