/**
 * Hostile values against a real intel process: every type's worst-case value answers 400 within a
 * bound (the request is aborted past it), and the same PID serves the next request. Value formats
 * run on a linear-time engine, so no value of any length can freeze the event loop.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RE2JS } from "re2js";
import { SUPER_TYPES, type TypeInfo } from "../../src/intel/model/taxonomy.ts";
import { worstCaseValues } from "../helpers/hostile-values.ts";
import { type IntelProcess, startIntelProcessWithKey } from "../helpers/intel-process.ts";
import { assertSurvived } from "../helpers/real-process.ts";

/** Far above what a linear match of a few KB takes, far below what the old PHONE pattern took (hours). */
const BOUND_MS = 10_000;

async function post(server: IntelProcess, t: TypeInfo, value: string): Promise<Response> {
  return server.api("/api/request/", {
    method: "POST",
    body: JSON.stringify({ super_type: t.superType, type: t.shortName, value }),
    signal: AbortSignal.timeout(BOUND_MS),
  });
}

describe("hostile values (real intel process)", () => {
  let server: IntelProcess;
  before(async () => {
    server = await startIntelProcessWithKey({ INTEL_CONNECTORS: "", INTEL_KEY_RATE_LIMIT_PER_MINUTE: "0" });
  });
  after(() => server?.close());

  it("answers the PHONE pattern's catastrophic value with 400 at once (it froze both services for hours)", async () => {
    const phone = SUPER_TYPES.flatMap((s) => s.types).find((t) => t.shortName === "PHONE");
    assert.ok(phone);
    for (const value of [`${"1".repeat(40)}a`, `${"1".repeat(31)}a`]) {
      const res = await post(server, phone, value);
      assert.equal(res.status, 400);
      const body = (await res.json()) as { code: string; detail: string };
      assert.ok(["invalid_value", "value_too_long"].includes(body.code), body.code);
    }
    await assertSurvived(server);
  });

  it("answers every type's worst-case values with 400 within the bound", async () => {
    for (const t of SUPER_TYPES.flatMap((s) => s.types)) {
      const cases = t.pattern ? worstCaseValues(t) : ["x".repeat(t.maxLength + 1)];
      for (const value of cases) {
        const res = await post(server, t, value);
        const body = (await res.json()) as { code: string; detail: string };
        assert.equal(res.status, 400, `${t.superType}/${t.shortName} ${value.slice(0, 40)}: ${body.detail}`);
        assert.ok(body.detail.length > 0 && body.code.length > 0);
      }
    }
    await assertSurvived(server, () => server.api("/api/types/"));
  });

  it("matches every value format with the linear-time engine, never a backtracking RegExp", () => {
    for (const t of SUPER_TYPES.flatMap((s) => s.types)) {
      if (t.pattern) assert.ok(t.pattern instanceof RE2JS, `${t.shortName} runs on RE2`);
      assert.ok(t.maxLength > 0 && t.maxLength <= 2048, `${t.shortName} has a cap`);
    }
  });
});
