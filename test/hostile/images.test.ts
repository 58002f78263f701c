/**
 * The hostile image corpus against a real `./loupe files serve` process: every case answers a
 * 400 `{detail, code}` (or a thumbnail), and the same process then makes an ordinary thumbnail.
 * SVG cases point at a local HTTP server that must never be called.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { postFile } from "../helpers/files-server.ts";
import { sizeOf, solid } from "../helpers/images.ts";
import { serveOnLoopback } from "../helpers/loopback.ts";
import { assertSurvived, type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { bmp1bit, type ImageCase, imageCaseGroups, slowSvg } from "./image-cases.ts";

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

  const probe = () => thumbnailWorks(server, ordinary);

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

  const groups = await imageCaseGroups(spy.url);
  for (const [group, cases] of groups) {
    describe(group, () => {
      for (const c of cases) it(c.name, () => expectAnswer(c));
    });
  }

  it("no SVG made a request", () => assert.deepEqual(spied, []));
});

describe("a thumbnail past THUMBNAIL_TIMEOUT_MS", () => {
  let server: RealProcess;
  let ordinary: Buffer;
  before(async () => {
    server = await startFilesProcess({ THUMBNAIL_TIMEOUT_MS: "50" });
    ordinary = await solid(64, 48).png().toBuffer();
  });
  after(() => server.close());

  const thumb = (bytes: Buffer, name: string, query = "") =>
    postFile(`${server.url}/converter/thumbnail${query}`, bytes, name);
  const probe = () => thumbnailWorks(server, ordinary);

  async function expectError(res: Response, code: string): Promise<{ detail: string; code: string }> {
    const body = (await res.json()) as { detail: string; code: string };
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(body.code, code, body.detail);
    return body;
  }

  it("stops a slow BMP decode (JavaScript, in the thumbnail process; its process is ended when it outlives the grace): 400 timeout", async () => {
    // 64 megapixels for bmp-ts to decode: far more than 50 ms on any machine.
    const body = await expectError(await thumb(bmp1bit(8000, 8000), "slow.bmp"), "timeout");
    assert.match(body.detail, /50 ms/);
    await assertSurvived(server, probe);
  });

  it("ends a slow SVG filter (one native librsvg call) by ending its process: 400 timeout", async () => {
    await expectError(
      await thumb(slowSvg(4000), "slow.svg", "?width=4000&height=4000&strategy=fit"),
      "timeout",
    );
    await assertSurvived(server, probe);
  });
});

describe("a thumbnail whose decoding process dies", () => {
  let server: RealProcess;
  before(async () => {
    server = await startFilesProcess();
  });
  after(() => server.close());

  it("answers 400 decoder_crashed, and the service goes on", async () => {
    const ordinary = await solid(64, 48).png().toBuffer();
    const probe = () => thumbnailWorks(server, ordinary);
    // One ordinary thumbnail leaves one idle, started thumbnail process: the slow SVG goes to it.
    await (await probe()).arrayBuffer();
    const [child] = await thumbnailChildren(server.pid);
    assert.ok(child, "a thumbnail process");
    const idleCpu = await cpuTicks(child);
    const url = `${server.url}/converter/thumbnail?width=4000&height=4000&strategy=fit`;
    const pending = postFile(url, slowSvg(4000), "slow.svg");
    // Busy rendering once it has used a fifth of a second of CPU (clock ticks are 1/100 s).
    while ((await cpuTicks(child)) - idleCpu < 20) await sleep(25);
    process.kill(child, "SIGSEGV");
    const res = await pending;
    const body = (await res.json()) as { detail: string; code: string };
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(body.code, "decoder_crashed", body.detail);
    await assertSurvived(server, probe);
  });
});

/** CPU time a process has used (user + system), in clock ticks. */
async function cpuTicks(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
}

/** The ordinary request after an attack: a thumbnail, 200 (not merely some answer below 500). */
async function thumbnailWorks(server: RealProcess, png: Buffer): Promise<Response> {
  const res = await postFile(`${server.url}/converter/thumbnail?width=32&height=32`, png, "ok.png");
  assert.equal(res.status, 200, `the next ordinary thumbnail: ${res.status} ${await res.clone().text()}`);
  return res;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PIDs of the service's thumbnail processes (Linux /proc). */
async function thumbnailChildren(pid: number): Promise<number[]> {
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8")).trim().split(/\s+/);
  const found: number[] = [];
  for (const child of children.filter(Boolean)) {
    const cmdline = await readFile(`/proc/${child}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes("thumbnail-child")) found.push(Number(child));
  }
  return found;
}
