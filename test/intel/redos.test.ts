/**
 * The V8 regular expressions that run on raw values (defanging, trimming) proved linear with a
 * ReDoS checker (recheck); the checker itself is shown to catch the PHONE pattern that froze Loupe.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkSync } from "recheck";
import { NORMALISING_PATTERNS } from "../../src/intel/model/taxonomy-values.ts";

describe("ReDoS proof of the value normalisation", () => {
  it("finds the old PHONE pattern exponential (the checker can fail)", () => {
    const old = String.raw`^(\+\d{1,3}[-.\s]?)?(\(?\d{1,4}\)?[-.\s]?)*\d{1,4}$`;
    const result = checkSync(old, "");
    assert.equal(result.status, "vulnerable");
  });

  it("finds every regular expression run on raw values safe", () => {
    assert.ok(NORMALISING_PATTERNS.length >= 10);
    for (const re of NORMALISING_PATTERNS) {
      const result = checkSync(re.source, re.flags);
      assert.equal(result.status, "safe", `${re} is ${result.status}`);
    }
  });
});
