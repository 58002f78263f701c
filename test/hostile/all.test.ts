/**
 * Hostile requests to `POST /analyzer/all` against a real `./loupe files serve` process: a
 * `processors=` list of 10,000 names (valid and unknown) and an archive bomb through every
 * processor at once. Each answers a clear 200 or 400, and the same PID keeps serving.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { zipOfZips } from "./extract-cases.ts";

describe("hostile /analyzer/all on a real files process", () => {
  let server: RealProcess;
  before(async () => {
    // Tight archive limits keep the bomb quick; test/hostile/extract.test.ts sends it to the defaults.
    server = await startFilesProcess({
      MAX_FORM_FIELD_SIZE: "1000000",
      EXTRACT_MEMORY_MB: "512",
      EXTRACT_MAX_ARCHIVE_BYTES: "50000000",
    });
  });
  after(() => server.close());

  const all = async (bytes: Uint8Array | string, name: string, fields: Record<string, string> = {}) => {
    const res = await postFile(`${server.url}/analyzer/all`, bytes, name, fields);
    return { status: res.status, body: await json(res) };
  };

  it("runs each processor once for 10,000 repeated names, and refuses 10,000 unknown ones", async () => {
    const repeated = await all("hello from https://lantern-c2.org/x", "a.txt", {
      processors: Array.from({ length: 10_000 }, (_, i) => (i % 2 ? "iocs" : "extractor")).join(","),
    });
    assert.equal(repeated.status, 200);
    assert.deepEqual(Object.keys(repeated.body.processors), ["extractor", "iocs"]);
    const unknown = await all("x", "a.txt", {
      processors: Array.from({ length: 10_000 }, (_, i) => `p${i}`).join(","),
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, "unknown_processor");
    assert.ok(unknown.body.detail.length < 500, "the refusal does not echo the whole list");
    await assertSurvived(server);
  });

  it("answers an archive bomb through every processor with bounded entries", async () => {
    const { status, body } = await all(zipOfZips(6, 100), "bomb.zip");
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    assert.ok(body.processors.extractor, "the extractor has its entry");
    assert.ok(body.processors.iocs, "iocs has its entry");
    await assertSurvived(server);
  });
});
