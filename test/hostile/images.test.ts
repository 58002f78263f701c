/**
 * The hostile image corpus against a real `./loupe files serve` process: every case answers a
 * 400 `{detail, code}` (or a thumbnail), and the same process then makes an ordinary thumbnail.
 * SVG cases point at a local HTTP server that must never be called.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { sizeOf, solid } from "../helpers/images.ts";
import { serveOnLoopback } from "../helpers/loopback.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import {
  bmp1bit,
  bmpCases,
  gifCases,
  heifCases,
  type ImageCase,
  jpegCases,
  outputCases,
  pngCases,
  svgCases,
  tiffCases,
  webpCases,
} from "./image-cases.ts";

describe("hostile images against a real files process", async () => {
  let server: RealProcess;
  let ordinary: Buffer;
  const spied: string[] = [];
  const spy = await serveOnLoopback(
    http.createServer((req, res) => {
      spied.push(req.url ?? "");
      res.end();
    }),
  );
  before(async () => {
    server = await startFilesProcess();
    ordinary = await solid(64, 48).png().toBuffer();
  });
  after(async () => {
    await server.close();
    await spy.close();
  });

  const probe = () => postFile(`${server.url}/converter/thumbnail?width=32&height=32`, ordinary, "ok.png");

  async function expectAnswer(c: ImageCase): Promise<void> {
    const url = `${server.url}/converter/thumbnail${c.query ? `?${c.query}` : ""}`;
    const res = await postFile(url, c.bytes, c.filename);
    if (res.status === 200 && c.codes.includes("thumbnail")) {
      assert.equal(res.headers.get("content-type"), "image/png", c.name);
      assert.equal((await sizeOf(Buffer.from(await res.arrayBuffer()))).format, "png", c.name);
    } else {
      const body = (await res.json()) as { detail?: unknown; code?: unknown };
      assert.equal(res.status, 400, `${c.name}: ${res.status} ${JSON.stringify(body)}`);
      assert.equal(typeof body.detail, "string", `${c.name}: detail`);
      assert.ok(c.codes.includes(String(body.code)), `${c.name}: code ${body.code} (${body.detail})`);
    }
    await assertSurvived(server, probe);
  }

  const groups: Array<[string, ImageCase[]]> = [
    ["BMP", bmpCases()],
    ["PNG", pngCases()],
    ["GIF", gifCases()],
    ["JPEG", await jpegCases()],
    ["TIFF", tiffCases()],
    ["WebP", await webpCases()],
    ["HEIF", await heifCases()],
    ["SVG", svgCases(spy.url)],
    ["output", await outputCases()],
  ];
  for (const [group, cases] of groups) {
    describe(group, () => {
      for (const c of cases) it(c.name, () => expectAnswer(c));
    });
  }

  it("no SVG made a request", () => assert.deepEqual(spied, []));
});

describe("a thumbnail past THUMBNAIL_TIMEOUT_MS", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess({ THUMBNAIL_TIMEOUT_MS: "50" });
  });
  after(() => server.close());

  it("answers 400 timeout, and the process goes on", async () => {
    // 64 megapixels for bmp-ts to decode in JavaScript: far more than 50 ms on any machine.
    const res = await postFile(`${server.url}/converter/thumbnail`, bmp1bit(8000, 8000), "slow.bmp");
    const body = (await res.json()) as { detail: string; code: string };
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(body.code, "timeout");
    assert.match(body.detail, /50 ms/);
    const ordinary = await solid(64, 48).png().toBuffer();
    await assertSurvived(server, () =>
      postFile(`${server.url}/converter/thumbnail?width=32&height=32`, ordinary, "ok.png"),
    );
  });
});
