/**
 * The hostile image corpus against a real `./loupe files serve` process: every case answers a
 * 400 `{detail, code}` (or a thumbnail), and the same process then makes an ordinary thumbnail.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { sizeOf, solid } from "../helpers/images.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { bmpCases, type ImageCase } from "./image-cases.ts";

describe("hostile images against a real files process", () => {
  let server: RealProcess;
  let ordinary: Buffer;
  before(async () => {
    server = await startFilesProcess({ MAX_IMAGE_PIXELS: "50000000" });
    ordinary = await solid(64, 48).png().toBuffer();
  });
  after(() => server.close());

  const probe = () => postFile(`${server.url}/converter/thumbnail?width=32&height=32`, ordinary, "ok.png");

  async function expectRefused(c: ImageCase): Promise<void> {
    const url = `${server.url}/converter/thumbnail${c.query ? `?${c.query}` : ""}`;
    const res = await postFile(url, c.bytes, c.filename);
    const type = res.headers.get("content-type") ?? "";
    if (res.status === 200 && c.codes.includes("thumbnail")) {
      assert.equal(type, "image/png", c.name);
      assert.equal((await sizeOf(Buffer.from(await res.arrayBuffer()))).format, "png", c.name);
    } else {
      const body = (await res.json()) as { detail?: unknown; code?: unknown };
      assert.equal(res.status, 400, `${c.name}: ${res.status} ${JSON.stringify(body)}`);
      assert.equal(typeof body.detail, "string", `${c.name}: detail`);
      assert.ok(c.codes.includes(String(body.code)), `${c.name}: code ${body.code} (${body.detail})`);
    }
    await assertSurvived(server, probe);
  }

  for (const c of bmpCases()) it(c.name, () => expectRefused(c));
});
