/**
 * A TypeScript client generated from the files service's own /openapi.json (openapi-typescript-codegen,
 * services per tag as openapi-generator makes them) calls every operation against a real server.
 * The driver (openapi-client-driver.ts.txt: not part of the project's build, it imports generated
 * code) is type-checked strictly with the generated client by tsc before it runs.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { startTestClamd } from "../helpers/clamd.ts";
import { startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { generatedClientDriver } from "../helpers/generated-client.ts";
import { json } from "../helpers/json.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

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
    // biome-ignore lint/suspicious/noExplicitAny: the driver's summary is read loosely, as JSON.
    const callAll = await generatedClientDriver<(...args: any[]) => Promise<any>>(
      dir,
      spec,
      new URL("./openapi-client-driver.ts.txt", import.meta.url),
    );
    const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: "#224466" } })
      .png()
      .toBuffer();
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
