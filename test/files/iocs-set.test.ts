import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scoreSet } from "../helpers/iocs-set.ts";

describe("the labelled indicator set (test/fixtures/iocs)", () => {
  it("reaches precision ≥ 0.95 and recall ≥ 0.9 on real text, HTML, e-mail, DOCX and PDF", async () => {
    const result = await scoreSet();
    assert.deepEqual(result.files.map((f) => f.type).sort(), [
      "application/pdf",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      "message/rfc822",
      "message/rfc822",
      "text/html",
      "text/plain",
    ]);
    assert.ok(result.labelled >= 90, `${result.labelled} labelled indicators`);
    const report = JSON.stringify(result.files.filter((f) => f.falsePositives.length || f.missed.length));
    assert.ok(result.overall.precision >= 0.95, `precision ${result.overall.precision}: ${report}`);
    assert.ok(result.overall.recall >= 0.9, `recall ${result.overall.recall}: ${report}`);
  });
});
