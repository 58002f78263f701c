/**
 * Attacks on intel's HTTP edges, each against a real intel process: concurrent password guesses
 * against the login throttle, hunting the panel's secret path in what clients can read (metrics,
 * OpenAPI), HSTS over plain HTTP. The attacked PID must still serve ordinary requests afterwards.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  addUserWithKey,
  type IntelProcess,
  PROCESS_PASSWORD,
  startIntelProcessWithKey,
} from "../helpers/intel-process.ts";
import { assertSurvived } from "../helpers/real-process.ts";

const ADMIN_PATH = "panel-0123456789abcdef";
const METRICS_TOKEN = "metrics-secret-42";

/** The login form's CSRF cookie and token, as a browser gets them. */
async function loginForm(server: IntelProcess): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${server.url}/${ADMIN_PATH}/login`);
  const page = await res.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  assert.ok(csrf && cookie, "the login form carries a CSRF token");
  return { cookie, csrf };
}

async function login(server: IntelProcess, form: { cookie: string; csrf: string }, password: string) {
  const res = await fetch(`${server.url}/${ADMIN_PATH}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: form.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: server.username, password, csrf: form.csrf }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

describe("intel HTTP edges (real process)", () => {
  let server: IntelProcess;
  before(async () => {
    server = await startIntelProcessWithKey({
      ADMIN_PATH,
      ADMIN_LOGIN_FAILURES_PER_USER: "5",
      METRICS_TOKEN,
      INTEL_KEY_RATE_LIMIT_PER_MINUTE: "20",
      INTEL_CONNECTORS: "",
    });
  });
  after(() => server?.close());

  it("lets at most the limit's worth of concurrent wrong logins reach the password check", async () => {
    const form = await loginForm(server);
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login(server, form, `wrong-password-${i}`)),
    );
    assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join(" "));
    assert.equal(statuses.filter((s) => s === 429).length, 7, statuses.join(" "));
    // Locked: even the right password is refused until the window passes.
    assert.equal(await login(server, form, PROCESS_PASSWORD), 429);
    await assertSurvived(server, () => server.api("/api/types/"));
  });

  it("never shows the panel's path outside the panel, even after someone opened it", async () => {
    for (const path of ["/", "/login", "/investigate", "/users", "/static/app.css"]) {
      await (await fetch(`${server.url}/${ADMIN_PATH}${path}`, { redirect: "manual" })).arrayBuffer();
    }
    const bearer = { authorization: `Bearer ${METRICS_TOKEN}` };
    const metrics = await fetch(`${server.url}/metrics`, { headers: bearer });
    assert.equal(metrics.status, 200);
    const text = await metrics.text();
    assert.match(text, /route="\/\{private\}\/login"/, "panel routes are counted under /{private}");
    for (const path of ["/api/schema/", "/api/docs/json", "/api/docs/yaml"]) {
      const res = await server.api(path);
      assert.equal(res.status, 200, path);
      const body = await res.text();
      assert.match(body, /\/api\/request\//, `${path} documents the API`);
      assert.doesNotMatch(body, new RegExp(ADMIN_PATH), `${path} names the panel`);
      assert.doesNotMatch(body, /\{private\}/, `${path} lists panel routes`);
    }
    assert.doesNotMatch(text, new RegExp(ADMIN_PATH), "/metrics names the panel");
  });

  it("answers /metrics only with its token when METRICS_TOKEN is set", async () => {
    const none = await fetch(`${server.url}/metrics`);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { code: string }).code, "not_authenticated");
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer nope" } });
    assert.equal(wrong.status, 401);
    await wrong.arrayBuffer();
  });

  it("sends no HSTS over plain HTTP", async () => {
    const res = await fetch(`${server.url}/`);
    await res.arrayBuffer();
    assert.equal(res.headers.get("strict-transport-security"), null);
    await assertSurvived(server, () => server.api("/api/types/"));
  });

  it("limits each API key: a flood of forced requests stops at the limit, other keys still served", async () => {
    const { key: flooder } = await addUserWithKey(server);
    const ask = (key: string, value: string) =>
      fetch(`${server.url}/api/request/`, {
        method: "POST",
        headers: { authorization: `Token ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ super_type: "ACTOR", type: "NGO", value, force: true }),
      });
    const tooLong = await ask(flooder, "x".repeat(2048));
    assert.equal(tooLong.status, 400);
    assert.equal(((await tooLong.json()) as { code: string }).code, "value_too_long");
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await ask(flooder, `ngo ${i} ${"y".repeat(200)}`);
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    const limited = statuses.filter((s) => s === 429).length;
    assert.equal(statuses.length - limited, 19, statuses.join(" ")); // 20 per minute, one spent above
    const res = await server.api("/api/types/");
    assert.equal(res.status, 200, "another key is not limited by this one");
    await res.arrayBuffer();
    const body = (await (await ask(flooder, "one more")).json()) as { code: string; detail: string };
    assert.equal(body.code, "rate_limited");
    assert.match(body.detail, /at most 20 per minute/);
  });
});
