/**
 * Every hostile extractor input against a real `./loupe files serve` process: each is answered
 * (a partial result or an entry error, in the error model), the same PID survives, the next
 * ordinary extraction succeeds and `GET /` stays truthful.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { type ExtractCase, extractCases } from "./extract-cases.ts";

const ORDINARY = "An ordinary note about the field investigation, to prove the service still reads files.";

/** Tight limits keep the suite quick; the defaults prove the service as shipped. */
const SERVERS = {
  defaults: { EXTRACT_WORKERS: "1" },
  tight: {
    EXTRACT_WORKERS: "1",
    EXTRACT_MEMORY_MB: "512",
    EXTRACT_TIMEOUT_MS: "30000",
    EXTRACT_MAX_ARCHIVE_BYTES: "50000000",
  },
} as const;
/** An answer must come within the extraction's time limit plus the upload and a process start. */
const SLACK_MS = 30_000;

for (const [kind, env] of Object.entries(SERVERS) as Array<[keyof typeof SERVERS, Record<string, string>]>) {
  describe(`hostile inputs to the extractor, against a real process (${kind} limits)`, () => {
    let server: RealProcess;
    let boundMs: number;
    before(async () => {
      server = await startFilesProcess(env);
      boundMs = Number(env.EXTRACT_TIMEOUT_MS ?? 120_000) + SLACK_MS;
    });
    after(() => server.close());

    const ordinaryExtraction = () => postFile(`${server.url}/analyzer/extractor`, ORDINARY, "note.txt");

    for (const c of extractCases.filter((c) => c.server === kind)) {
      it(c.name, async () => {
        const res = await postFile(
          `${server.url}/analyzer/extractor`,
          await c.bytes(),
          c.filename,
          {},
          AbortSignal.timeout(boundMs),
        );
        judge(c, res.status, await json(res));
        // The very next extraction is read whole (not handed a process that is being killed).
        const next = await json(await ordinaryExtraction());
        assert.equal(next.success, true, `the next ordinary extraction succeeds: ${next.error}`);
        assert.match(next.content, /field investigation/);
        await assertSurvived(server);
        const health = await json(await fetch(`${server.url}/`));
        assert.equal(health.engines.extractor.ready, true, "health says the extractor is ready, and it is");
      });
    }
  });
}

/** A refusal in the error model, or an answer of the kind the case allows. */
function judge(c: ExtractCase, status: number, body: Json): void {
  if (status === 400) {
    assert.equal(typeof body.detail, "string");
    assert.equal(typeof body.code, "string");
    return;
  }
  assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
  const entry = body.processors.extractor;
  if (process.env.HOSTILE_VERBOSE)
    console.log(
      `${c.name} → ${entry.error_short ?? `ok ${entry.analysis.extra.loupe?.truncated ?? "whole"}`}`,
    );
  if (entry.success) {
    if (c.expect === "partial")
      assert.equal(
        typeof entry.analysis.extra.loupe?.truncated,
        "string",
        "the partial result says why it stopped",
      );
    return;
  }
  const allowed = c.expect === "partial" ? STOPPED : [...STOPPED, "parse_error", "engine_error"];
  assert.ok(allowed.includes(entry.error_short), `entry error ${entry.error_short}: ${entry.error}`);
  assert.equal(typeof entry.error, "string");
}

const STOPPED = ["resource_limit", "timeout"];
