import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { createHttpServer } from "../../src/common/http.ts";
import { createLogger } from "../../src/common/logger.ts";
import { startFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";

describe("shared HTTP bootstrap", () => {
  it("limits requests per client when RATE_LIMIT_PER_MINUTE is set", async () => {
    const server = await startFilesServer({ RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${server.url}/`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const res = await fetch(`${server.url}/`);
      const body = await json(res);
      assert.equal(body.code, "rate_limited");
      assert.match(body.detail, /at most 3 per minute/);
      assert.ok(res.headers.get("retry-after"));
    } finally {
      await server.close();
    }
  });

  it("sends security headers and echoes a sane request id", async () => {
    const server = await startFilesServer();
    try {
      const res = await fetch(`${server.url}/`, { headers: { "x-request-id": "case-42" } });
      assert.equal(res.headers.get("x-request-id"), "case-42");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("x-frame-options"), "SAMEORIGIN");
      // Worked out once at start, the same on every response: a route, a 404, a refused upload.
      const expected = {
        "content-security-policy":
          "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline';upgrade-insecure-requests",
        "cross-origin-opener-policy": "same-origin",
        "cross-origin-resource-policy": "same-origin",
        "referrer-policy": "no-referrer",
        "x-dns-prefetch-control": "off",
        "x-permitted-cross-domain-policies": "none",
        "x-xss-protection": "0",
      };
      const missing = await fetch(`${server.url}/no/such/route`);
      const refused = await fetch(`${server.url}/analyzer/rulematch`, { method: "POST" });
      for (const r of [res, missing, refused])
        for (const [name, value] of Object.entries(expected)) assert.equal(r.headers.get(name), value, name);
      assert.equal(missing.status, 404);
      assert.equal(res.headers.get("strict-transport-security"), null);
      const evil = await fetch(`${server.url}/`, {
        headers: { "x-request-id": "<script>alert(1)</script>" },
      });
      assert.notEqual(evil.headers.get("x-request-id"), "<script>alert(1)</script>");
    } finally {
      await server.close();
    }
  });

  it("names the allowed values in validation errors", async () => {
    const server = await startFilesServer();
    try {
      const form = new FormData();
      form.append("file", new Blob(["x"]), "x");
      const res = await fetch(`${server.url}/converter/thumbnail?strategy=zoom`, {
        method: "POST",
        body: form,
      });
      assert.equal(res.status, 400);
      const body = await json(res);
      assert.equal(body.code, "invalid_request");
      assert.match(body.detail, /strategy must be one of: pad, fit, cover, contain/);
    } finally {
      await server.close();
    }
  });

  it("sends HSTS only when the service is reached over https, and never names clamd's socket", async () => {
    const server = await startFilesServer({ CLAMD_SOCKET: "/tmp/loupe-secret-place/clamd.ctl" });
    try {
      const res = await fetch(`${server.url}/`);
      const body = await res.text();
      assert.equal(res.headers.get("strict-transport-security"), null);
      assert.doesNotMatch(body, /loupe-secret-place/);
      assert.match(body, /local socket/);
    } finally {
      await server.close();
    }
    const app = await createHttpServer({
      name: "test",
      version: "0",
      description: "",
      logger: createLogger("silent", "test"),
      specPath: "/openapi.json",
      docsPath: "/docs",
      rateLimitPerMinute: 0,
      alwaysHsts: true,
    });
    app.get("/", async () => ({ ok: true }));
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const res = await fetch(`${url}/`);
      await res.arrayBuffer();
      assert.match(res.headers.get("strict-transport-security") ?? "", /max-age=31536000/);
    } finally {
      await app.close();
    }
  });

  it("logs each answered request in one line: method, URL, client, status and time, never the key", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const app = await createHttpServer({
      name: "test",
      version: "0",
      description: "",
      logger: createLogger("info", "test", sink),
      specPath: "/openapi.json",
      docsPath: "/docs",
      rateLimitPerMinute: 0,
    });
    app.get("/thing", async () => ({ ok: true }));
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      for (const path of ["/thing?x=1", "/missing"])
        await (
          await fetch(`${url}${path}`, { headers: { authorization: "Token sekrit-key" } })
        ).arrayBuffer();
      await app.close();
      const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.req || l.res);
      assert.deepEqual(
        requests.map((l) => [l.msg, l.req.method, l.req.url, l.res.statusCode]),
        [
          ["request completed", "GET", "/thing?x=1", 200],
          ["request completed", "GET", "/missing", 404],
        ],
      );
      for (const l of requests) {
        assert.equal(l.req.remoteAddress, "127.0.0.1");
        assert.equal(typeof l.responseTime, "number");
        assert.ok(l.reqId);
      }
      assert.doesNotMatch(lines.join("\n"), /sekrit-key/);
    } finally {
      await app.close();
    }
  });
});
