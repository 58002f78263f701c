/**
 * The panel's onSend gzip (common/gzip.ts `gzipText`): an HTML or JSON answer made as text is sent
 * gzipped to a client that accepts it, whole after gunzip; a small one, one to a client that does
 * not accept gzip, and bytes (assets, already handled by sendBytes) pass as they are.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import Fastify from "fastify";
import { gzipText } from "../../src/common/gzip.ts";

const PAGE = `<!doctype html><p>${"a report line\n".repeat(2000)}</p>`;

async function app() {
  const server = Fastify();
  server.addHook("onSend", gzipText);
  server.get("/page", async (_req, reply) => reply.type("text/html; charset=utf-8").send(PAGE));
  server.get("/json", async () => ({
    nodes: Array.from({ length: 500 }, (_, i) => ({ path: `note-${i}.txt` })),
  }));
  server.get("/small", async (_req, reply) => reply.type("text/html").send("<p>hi</p>"));
  server.get("/bytes", async (_req, reply) => reply.type("text/html").send(Buffer.from(PAGE)));
  await server.ready();
  return server;
}

describe("gzipped text answers", () => {
  it("gzips a large page and JSON for a client that accepts it, and nothing else", async () => {
    const server = await app();
    try {
      const gzip = { "accept-encoding": "gzip, deflate, br" };
      const page = await server.inject({ url: "/page", headers: gzip });
      assert.equal(page.headers["content-encoding"], "gzip");
      assert.equal(page.headers.vary, "accept-encoding");
      assert.ok(page.rawPayload.length < PAGE.length / 10, `${page.rawPayload.length} bytes`);
      assert.equal(gunzipSync(page.rawPayload).toString(), PAGE);
      const json = await server.inject({ url: "/json", headers: gzip });
      assert.equal(json.headers["content-encoding"], "gzip");
      assert.equal(JSON.parse(gunzipSync(json.rawPayload).toString()).nodes.length, 500);
      for (const [url, headers] of [
        ["/page", {}],
        ["/page", { "accept-encoding": "gzip;q=0, identity" }],
        ["/small", gzip],
        ["/bytes", gzip],
      ] as const) {
        const res = await server.inject({ url, headers });
        assert.equal(res.headers["content-encoding"], undefined, `${url} ${JSON.stringify(headers)}`);
      }
    } finally {
      await server.close();
    }
  });
});
