/**
 * Every hostile extractor input against a real `./loupe files serve` process: each is answered
 * (a partial result or an entry error, in the error model), the same PID survives, the next
 * ordinary extraction succeeds and `GET /` stays truthful.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { extractCases } from "./extract-cases.ts";

const ORDINARY = "An ordinary note about the field investigation, to prove the service still reads files.";

describe("hostile inputs to the extractor, against a real process", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({ EXTRACT_WORKERS: "1" });
  });
  after(() => server.close());

  const ordinaryExtraction = () => postFile(`${server.url}/analyzer/extractor`, ORDINARY, "note.txt");

  for (const c of extractCases) {
    it(c.name, async () => {
      const res = await postFile(`${server.url}/analyzer/extractor`, c.bytes(), c.filename);
      const body = await json(res);
      if (res.status === 400) {
        assert.equal(typeof body.detail, "string");
        assert.equal(typeof body.code, "string");
      } else {
        assert.equal(res.status, 200, JSON.stringify(body).slice(0, 500));
        const entry = body.processors.extractor;
        if (entry.success) {
          assert.ok(c.expect.partial, `${c.name}: succeeded, and only an error was acceptable`);
          assert.equal(typeof entry.analysis.extra.loupe?.truncated, "string", "the partial result says why");
        } else {
          assert.ok(c.expect.errors?.includes(entry.error_short), `entry error ${entry.error_short}`);
          assert.equal(typeof entry.error, "string");
        }
      }
      await assertSurvived(server, ordinaryExtraction);
      const after = await json(await ordinaryExtraction());
      assert.equal(after.success, true, "the next ordinary extraction succeeds");
      assert.match(after.content, /field investigation/);
      const health = await json(await fetch(`${server.url}/`));
      assert.equal(health.engines.extractor.ready, true, "health says the extractor is ready, and it is");
    });
  }
});
