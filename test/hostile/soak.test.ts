/**
 * Issue 27, the short soak: 8 s of the hostile shapes the issue names (runaway YARA loops and
 * operator chains, costly 7z key derivations and wrong passwords, a small 7z with encrypted names,
 * an RLE8 BMP of 100 megapixels, a gzip bomb, deep zip-of-zips, an ELF of two million
 * symbols, over-size bodies, uploads cut off or stalled) from three addresses, beside ordinary
 * extractions, rule matches, thumbnails and antivirus scans, against one files process and a real
 * clamd. Every ordinary answer must be right, every hostile one of a right kind, and health true
 * throughout and once settled. Correctness only: `./loupe bench soak` runs every shape for minutes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { errorsLogged, prepareShapes, SOAK_LIMITS, soak, startSoakTarget } from "./soak.ts";
import { hostileShapes } from "./soak-shapes.ts";

/** The shapes the issue names, one or two of each kind (the bench sends all of them). */
const NAMED = [
  /^runaway loop/,
  /^chain of 5000 binary operators/,
  /^7z with encrypted names at 2\^24/,
  /^7z guessed at/,
  /^small 7z with encrypted names/,
  /^BMP RLE8 1×100,000,000/,
  /^gzip in gzip/,
  /^zips nested 40 deep/,
  /^zip of 6 zips/,
  /^ELF of 2,000,000 symbols/,
  /^a body one byte over/,
  /^upload cut off/,
  /^upload stalled/,
];

describe("a soak of hostile shapes and ordinary requests against one files process", {
  skip: skipUnlessCommands("clamd", "7zz"),
}, () => {
  let target: Awaited<ReturnType<typeof startSoakTarget>>;
  let shapes: Awaited<ReturnType<typeof hostileShapes>>;
  before(async () => {
    shapes = (await hostileShapes(SOAK_LIMITS)).filter((s) => NAMED.some((n) => n.test(s.name)));
    [target] = await Promise.all([startSoakTarget(), prepareShapes(shapes)]);
  });
  after(() => target?.close());

  it("answers every ordinary request right, every hostile one in bounds, and health stays true", async (t) => {
    assert.equal(shapes.length, NAMED.length + 1, shapes.map((s) => s.name).join("\n"));
    const report = await soak(target.files, {
      durationMs: 8_000,
      shapes,
      hostileLanes: 3,
      ordinaryBoundMs: 120_000,
      hostileBoundMs: 120_000,
    });
    const counts = Object.entries(report.ordinaryMs).map(([kind, ms]) => `${ms.length} ${kind}`);
    t.diagnostic(
      `${counts.join(", ")}; hostile ${JSON.stringify(report.hostile)}; ${report.healthChecks} health checks`,
    );
    assert.deepEqual(report.failures, []);
    assert.deepEqual(report.unexpected, []);
    assert.deepEqual(report.healthLies, []);
    assert.deepEqual(errorsLogged(target), [], "a hostile client caused an error in the service's log");
    for (const kind of ["text extraction", "rule match", "thumbnail", "antivirus scan"])
      assert.ok((report.ordinaryMs[kind]?.length ?? 0) >= 2, `${kind} was asked`);
  });
});
