/** The vendor HTTP client: retries with backoff honouring Retry-After, timeouts, and stable error codes. */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { backoffMs, createVendorHttp } from "../../src/intel/connectors/http.ts";
import { VendorError } from "../../src/intel/connectors/types.ts";

describe("vendor HTTP client", () => {
  let server: http.Server;
  let base = "";
  const hits = new Map<string, number>();
  before(async () => {
    server = http.createServer((req, res) => {
      const n = (hits.get(req.url ?? "") ?? 0) + 1;
      hits.set(req.url ?? "", n);
      const send = (status: number, body: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(body);
      };
      if (req.url === "/flaky") return n <= 2 ? send(503, "{}") : send(200, '{"ok":true}');
      if (req.url === "/limited-once")
        return n === 1 ? send(429, "{}", { "retry-after": "1" }) : send(200, '{"ok":true}');
      if (req.url === "/limited") return send(429, "{}", { "retry-after": "0" });
      if (req.url === "/garbage") return send(200, "<html>not json");
      if (req.url === "/slow") return void setTimeout(() => send(200, "{}"), 2000);
      if (req.url === "/forbidden") return send(403, "{}");
      return send(404, "{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const client = (retries: number, timeoutMs = 1000) =>
    createVendorHttp({ baseUrl: base, timeoutMs, retries, maxBackoffMs: 3000 });

  it("retries 5xx with backoff until an answer comes", async () => {
    const res = await client(2).get("/flaky");
    assert.equal(res.status, 200);
    assert.equal(hits.get("/flaky"), 3);
  });

  it("waits as long as Retry-After says before retrying a 429", async () => {
    const started = performance.now();
    const res = await client(1).get("/limited-once");
    assert.equal(res.status, 200);
    assert.ok(performance.now() - started >= 900, "waited about a second");
  });

  it("gives up on a persistent 429 with rate_limited, and never retries past its budget", async () => {
    await assert.rejects(
      client(2).get("/limited"),
      (e: unknown) => e instanceof VendorError && e.code === "rate_limited",
    );
    assert.equal(hits.get("/limited"), 3);
  });

  it("names timeouts, refused keys and garbage", async () => {
    await assert.rejects(
      client(0, 300).get("/slow"),
      (e: unknown) => e instanceof VendorError && e.code === "timeout",
    );
    await assert.rejects(
      client(0).get("/forbidden"),
      (e: unknown) => e instanceof VendorError && e.code === "invalid_credentials",
    );
    const garbage = await client(0).get("/garbage");
    assert.throws(
      () => garbage.json(),
      (e: unknown) => e instanceof VendorError && e.code === "bad_response",
    );
    assert.equal((await client(0).get("/nothing")).status, 404, "404 is handed to the connector");
  });

  it("computes backoff from Retry-After (seconds or date), capped", () => {
    assert.equal(backoffMs(0, "2", 10_000), 2000);
    assert.equal(backoffMs(0, "120", 10_000), 10_000);
    const inOneSecond = new Date(Date.now() + 1000).toUTCString();
    assert.ok(backoffMs(0, inOneSecond, 10_000) <= 1000);
    assert.ok(backoffMs(3, undefined, 10_000) >= 2000);
  });
});
