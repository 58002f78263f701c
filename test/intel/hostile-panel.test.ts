/**
 * The panel's small things against a real intel process: a credential set's removal is audited
 * under the set's own vendor whatever the URL says (CR/LF in it included), the audit CSV neutralises
 * every formula spelling, both framing headers refuse framing, the request log never prints the
 * panel's path, and bidirectional controls in names are shown escaped.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { virustotal } from "../../src/intel/connectors/virustotal/index.ts";
import { recordAudit } from "../../src/intel/services/audit.ts";
import { addCredentialSet } from "../../src/intel/services/credentials.ts";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import { upsertEntity } from "../../src/intel/store/graph.ts";
import { type IntelProcess, PROCESS_PASSWORD, startIntelProcessWithKey } from "../helpers/intel-process.ts";
import { assertSurvived } from "../helpers/real-process.ts";

const ADMIN_PATH = "panel-feedc0ffee0123456789";

/** A signed-in panel session: its cookies and CSRF token. */
async function signIn(server: IntelProcess): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${server.url}/${ADMIN_PATH}/login`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? "";
  const cookies = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]);
  const res = await fetch(`${server.url}/${ADMIN_PATH}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookies(form).join("; "), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: server.username, password: PROCESS_PASSWORD, csrf }).toString(),
  });
  await res.arrayBuffer();
  assert.equal(res.status, 303, "signed in");
  const cookie = [...cookies(form), ...cookies(res)].join("; ");
  const page = await fetch(`${server.url}/${ADMIN_PATH}/credentials`, { headers: { cookie } });
  const token = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  assert.ok(token, "a signed-in page carries the session's CSRF token");
  return { cookie, csrf: token };
}

const panel = (server: IntelProcess, session: { cookie: string }, path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/${ADMIN_PATH}${path}`, {
    redirect: "manual",
    ...init,
    headers: { cookie: session.cookie, ...(init.headers as Record<string, string>) },
  });

describe("the panel's small things (real intel process)", () => {
  let server: IntelProcess;
  let store: Store;
  let session: { cookie: string; csrf: string };
  let logs = "";
  before(async () => {
    server = await startIntelProcessWithKey(
      { ADMIN_PATH, LOG_LEVEL: "info", INTEL_CONNECTORS: "virustotal" },
      (chunk) => {
        logs += chunk.toString();
      },
    );
    store = await openStore(server.databaseUrl ?? "");
    session = await signIn(server);
  });
  after(async () => {
    await store?.close();
    await server?.close();
  });

  it("audits a removal under the removed set's vendor, whatever the URL names (CR/LF included)", async () => {
    const id = await addCredentialSet({ store }, virustotal, { api_key: "3f9a1c7e5b2d4086".repeat(4) });
    const res = await panel(server, session, `/credentials/evil%0D%0ASet-Cookie:%20x=1/${id}/remove`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: session.csrf }).toString(),
    });
    await res.arrayBuffer();
    assert.equal(res.status, 303, "the removal answers its redirect");
    assert.equal(res.headers.get("location")?.endsWith("/credentials#vendor-virustotal"), true);
    assert.equal(res.headers.get("set-cookie")?.includes("x=1"), false);
    const csv = await (await panel(server, session, "/audit/export?format=csv&action=credentials")).text();
    const row = csv.split("\r\n").find((line) => line.includes("credentials.remove"));
    assert.ok(row, csv);
    assert.match(row, /,credentials\.remove,virustotal,set #\d+$/);
    assert.doesNotMatch(csv, /evil/);
    await assertSurvived(server, () => server.api("/api/types/"));
  });

  it("neutralises every spelling of a formula in the audit CSV", async () => {
    const hostile = [" =1+1", "\u3000=1+1", "\uff1d1+1", "|calc", "ok\n=1+1", "ok\r\n+1", "@SUM(A1)", "\t-1"];
    for (const detail of hostile) await recordAudit({ store }, "mallory", "user.create", "t", detail);
    const csv = await (await panel(server, session, "/audit/export?format=csv&action=user")).text();
    // A quoted cell may span lines: every line of a cell must start inert.
    const cells = csv.match(/"(?:[^"]|"")*"|[^,\r\n]+/g) ?? [];
    for (const cell of cells) {
      const text = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
      for (const line of text.split(/\r\n|\r|\n/))
        assert.doesNotMatch(
          line,
          /^[\s\u3000]*[=+\-@|\uff1d]/,
          `a cell line starts a formula: ${JSON.stringify(line)}`,
        );
    }
    for (const detail of hostile) assert.ok(csv.includes(detail.split(/\r?\n/).at(-1)!.trim()), detail);
  });

  it("refuses framing in both headers", async () => {
    for (const path of ["/login", "/credentials"]) {
      const res = await panel(server, session, path);
      await res.arrayBuffer();
      assert.equal(res.headers.get("x-frame-options"), "DENY", path);
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /frame-ancestors 'self'/, path);
      assert.match(csp, /default-src 'self'/, `${path} keeps the rest of the policy`);
    }
  });

  it("shows bidirectional controls in names escaped", async () => {
    const name = "invoice\u202Efdp.exe";
    const id = await upsertEntity(store.db, { superType: "OBSERVABLE", type: "FILE_NAME", name }, null);
    for (const path of [`/entities/${id}`, `/entities?q=invoice`]) {
      const page = await (await panel(server, session, path)).text();
      assert.ok(page.includes("invoice&lt;U+202E&gt;fdp.exe"), `${path} shows the control escaped`);
      assert.doesNotMatch(page, /[\u202a-\u202e\u2066-\u2069]/, `${path} holds no raw bidirectional control`);
    }
  });

  it("never prints the panel's path in the request log", async () => {
    await (await panel(server, session, "/audit?x=1")).arrayBuffer();
    await new Promise((r) => setTimeout(r, 200)); // the log line is written after the answer
    assert.match(logs, /"url":"\/\{private\}\/audit\?x=1"/, "panel requests are logged under /{private}");
    assert.doesNotMatch(logs, new RegExp(ADMIN_PATH));
  });
});
