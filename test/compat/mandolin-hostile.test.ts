/**
 * Hostile requests on Mandolin's names, against a files service in its own process: the generated
 * damaged files, broken multipart bodies and nasty YARA sources of the fuzz run, sent to
 * /analyzer/tika and /analyzer/yara. Never a 5xx; every 200 still fits Mandolin's models.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { hostileRequest, judgeAnswer, seedFiles, sendHostile } from "../helpers/hostile.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { assertFitsSchema, MANDOLIN_SCHEMAS } from "./mandolin-schema.ts";

const FIELD_LIMIT = 64 * 1024;
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const RENAMED: Array<[string, "tika" | "yara"]> = [
  ["/analyzer/extractor", "tika"],
  ["/analyzer/rulematch", "yara"],
];

describe("hostile input on /analyzer/tika and /analyzer/yara (real process)", () => {
  let server: RealProcess;
  let seeds: Buffer[];
  before(async () => {
    server = await startFilesProcess({
      MAX_FILE_SIZE: "1000000",
      MAX_FORM_FIELD_SIZE: String(FIELD_LIMIT),
      SCAN_TIMEOUT_MS: "5000",
      EXTRACT_TIMEOUT_MS: "10000",
      // Not under test here: no clamd is started for the antivirus.
      CLAMD_HOST: "127.0.0.1",
      CLAMD_PORT: "1",
    });
    seeds = await seedFiles();
  });
  after(() => server.close());

  it(`answers ${RUNS} hostile requests within the error model and Mandolin's shapes`, async () => {
    // The fuzz run's requests for Loupe's extractor and rulematch, sent to Mandolin's names instead.
    const requests = hostileRequest(seeds, FIELD_LIMIT)
      .map((r) => {
        const renamed = RENAMED.find(([loupe]) => r.path.startsWith(loupe));
        return renamed
          ? { ...r, path: r.path.replace(renamed[0], `/analyzer/${renamed[1]}`), as: renamed[1] }
          : null;
      })
      .filter((r) => r !== null);
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(requests, async (r) => {
        const answer = await sendHostile(server.url, r);
        seen.add(`${r.as} ${answer.status}`);
        assert.equal(judgeAnswer(r, answer), null);
        if (answer.status === 200) assertFitsSchema(MANDOLIN_SCHEMAS[r.as], JSON.parse(answer.body), r.path);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261123), endOnFailure: true },
    );
    assert.ok(seen.has("tika 200") && seen.has("yara 200") && seen.has("yara 400"), [...seen].join(", "));
    await assertSurvived(server, () => fetch(`${server.url}/`));
  });
});
