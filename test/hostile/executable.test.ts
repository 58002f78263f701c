/**
 * Every hostile executable against a real `./loupe files serve` process: the extraction answers
 * within its time limit, `extra.executable` is bounded facts or an error entry saying why, the same
 * PID survives and an ordinary executable still gets its facts afterwards.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dexFile } from "../helpers/dex.ts";
import { postFile } from "../helpers/files-server.ts";
import { type Json, json } from "../helpers/json.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { executableCases } from "./executable-cases.ts";

const ENV = { EXTRACT_WORKERS: "1", EXECUTABLE_TIMEOUT_MS: "20000", EXECUTABLE_MAX_ITEMS: "500" };
/** The extraction's and the facts' time limits, plus the upload and a worker start. */
const BOUND_MS = 120_000 + 30_000;

/** Bounded facts (lists cut, entropy within its budget of twice the file), or an error entry with its reason. */
function judge(executable: Json | undefined, fileSize: number): void {
  assert.ok(executable, "a file that starts like an executable gets facts or an error entry");
  if ("error" in executable) {
    assert.ok(
      ["too_large", "timeout", "engine_error", "unreadable"].includes(executable.error),
      executable.error,
    );
    assert.equal(typeof executable.detail, "string");
    return;
  }
  for (const list of ["sections", "exports", "resources"] as const)
    assert.ok(executable[list].length <= 500, `${list}: ${executable[list].length}`);
  for (const lib of executable.imports) assert.ok(lib.functions.length <= 500);
  const read = executable.sections.reduce((n: number, s: Json) => n + (s.entropy === null ? 0 : s.size), 0);
  assert.ok(read <= 2 * fileSize, `entropy read ${read} bytes of a ${fileSize}-byte file`);
}

describe("hostile executables, against a real process", () => {
  let server: RealProcess;
  // Built first: a long build between two requests would race the server's keep-alive timeout.
  const built = new Map<string, Buffer>();
  before(async () => {
    for (const c of executableCases) built.set(c.name, c.bytes());
    server = await startFilesProcess(ENV);
  });
  after(() => server.close());

  for (const c of executableCases) {
    it(c.name, async () => {
      const bytes = built.get(c.name) ?? Buffer.alloc(0);
      const res = await postFile(
        `${server.url}/analyzer/extractor`,
        bytes,
        c.filename,
        {},
        AbortSignal.timeout(BOUND_MS),
      );
      assert.equal(res.status, 200);
      const body = await json(res);
      const entry = body.processors.extractor;
      if (process.env.HOSTILE_VERBOSE)
        console.log(
          `${c.name} → ${JSON.stringify(entry.analysis?.extra?.executable ?? entry.error_short).slice(0, 300)}`,
        );
      if (entry.success) judge(entry.analysis.extra.executable, bytes.length);
      else assert.equal(typeof entry.error_short, "string");
      await assertSurvived(server);
      const next = await json(
        await postFile(`${server.url}/analyzer/extractor`, dexFile(["La/B;"]), "ok.dex"),
      );
      assert.equal(
        next.processors.extractor.analysis.extra.executable.format,
        "dex",
        "the next file gets its facts",
      );
    });
  }
});
