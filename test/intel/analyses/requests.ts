/** The analyses suites' requests: upload to intel's `POST /api/analyses/`, then wait for the analysis to leave `pending` (polling its GET). */
import assert from "node:assert/strict";
import type { TestIntelServer } from "../../helpers/intel-server.ts";
import { type Json, json } from "../../helpers/json.ts";

/** Sends `text` as a file named `name`; the pending analysis' id (202 asserted). */
export async function uploadAnalysis(server: TestIntelServer, text: string, name: string): Promise<string> {
  const body = new FormData();
  body.append("file", new Blob([text]), name);
  const res = await fetch(`${server.url}/api/analyses/`, {
    method: "POST",
    headers: { authorization: `Token ${server.key}` },
    body,
  });
  const created = await json(res);
  assert.equal(res.status, 202, JSON.stringify(created));
  return created.id;
}

/** The analysis once it is done or failed (or as it is after a minute). */
export async function finishedAnalysis(server: TestIntelServer, id: string): Promise<Json> {
  for (const deadline = Date.now() + 60_000; ; ) {
    const got = await json(await server.api(`/api/analyses/${id}/`));
    if (got.status !== "pending" || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}
