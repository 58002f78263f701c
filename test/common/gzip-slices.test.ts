/**
 * Answers kept as slices (common/chunks.ts) reach the client as the same bytes as one Buffer would,
 * plain and gzipped, with their length: a real Fastify server on loopback and a real client.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import Fastify, { type FastifyInstance } from "fastify";
import { joined, lastBytes, sliced, withoutLast } from "../../src/common/chunks.ts";
import { sendBytes } from "../../src/common/gzip.ts";

// Large enough for many slices, varied enough that gzip has work to do.
const whole = Buffer.from(
  JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ name: `host-${i}.example.org`, n: i * 7919 }))),
);

describe("answers sent as slices", () => {
  let app: FastifyInstance;
  let url: string;
  before(async () => {
    app = Fastify();
    // Compressible to almost nothing: gzip gives all its output when it is flushed at the end.
    app.get("/same", (req, reply) => sendBytes(req, reply, sliced(Buffer.alloc(300_000, "x"), 65_536)));
    app.get("/", (req, reply) =>
      sendBytes(req, reply.type("application/json; charset=utf-8"), sliced(whole, 4096)),
    );
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`;
  });
  after(() => app?.close());

  it("sends the same bytes plain, with their length", async () => {
    const res = await fetch(url, { headers: { "accept-encoding": "identity" } });
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(res.headers.get("content-encoding"), null);
    assert.equal(res.headers.get("content-length"), String(whole.length));
    assert.ok(body.equals(whole));
  });

  it("sends the same bytes gzipped, compressed once and the same again", async () => {
    for (let i = 0; i < 2; i++) {
      // undici's fetch would inflate the answer itself: read the raw bytes through node:http.
      const raw = await rawGet(url, { "accept-encoding": "gzip" });
      assert.equal(raw.headers["content-encoding"], "gzip");
      assert.ok(raw.body.length < whole.length / 2, `${raw.body.length} of ${whole.length} bytes`);
      assert.ok(gunzipSync(raw.body).equals(whole), `answer ${i + 1} inflates to the same bytes`);
      // And as a client that inflates as it reads sees it.
      const res = await fetch(url, { headers: { "accept-encoding": "gzip" } });
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(whole), `answer ${i + 1} through fetch`);
    }
  });

  it("sends what gzip gives only at its end", async () => {
    const raw = await rawGet(`${url}same`, { "accept-encoding": "gzip" });
    assert.ok(gunzipSync(raw.body).equals(Buffer.alloc(300_000, "x")));
  });

  it("cuts and reads the tail of slices without joining them", () => {
    const slices = sliced(whole, 1000);
    for (const n of [1, 999, 1000, 1001, 2500]) {
      assert.ok(lastBytes(slices, n).equals(whole.subarray(whole.length - n)), `last ${n}`);
      assert.ok(joined(withoutLast(slices, n)).equals(whole.subarray(0, whole.length - n)), `without ${n}`);
    }
  });
});

/** A GET read as the bytes on the wire. */
async function rawGet(target: string, headers: Record<string, string>) {
  return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    request(target, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}
