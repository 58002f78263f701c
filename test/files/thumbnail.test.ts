import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { THUMBNAIL_INPUTS, type ThumbnailInput } from "../../src/files/converters/thumbnail-inputs.ts";
import {
  postFile,
  startFilesServer,
  type TestFilesServer,
  waitForNoLeftovers,
} from "../helpers/files-server.ts";
import { BLUE, bmp24, pixelAt, pngBombHeader, RED, sizeOf, solid } from "../helpers/images.ts";
import { json } from "../helpers/json.ts";

describe("POST /converter/thumbnail", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ MAX_IMAGE_PIXELS: "50000000" });
  });
  after(() => server.close());

  const thumb = (bytes: Uint8Array, query = "", name = "image") =>
    postFile(`${server.url}/converter/thumbnail${query ? `?${query}` : ""}`, bytes, name);

  async function okPng(res: Response): Promise<Buffer> {
    if (res.status !== 200) assert.fail(`expected 200, got ${res.status}: ${await res.text()}`);
    assert.equal(res.headers.get("content-type"), "image/png");
    return Buffer.from(await res.arrayBuffer());
  }

  it("pads to exactly 300×200 by default, transparent around the image", async () => {
    const jpeg = await solid(400, 100).jpeg().toBuffer();
    const png = await okPng(await thumb(jpeg));
    assert.deepEqual(await sizeOf(png), { width: 300, height: 200, format: "png" });
    assert.equal((await pixelAt(png, 0, 0))[3], 0, "corner is transparent");
    const centre = await pixelAt(png, 150, 100);
    assert.ok(centre[2] > 200 && centre[3] === 255, `centre is the opaque blue image, got ${centre}`);
  });

  it("pads with the requested CSS colour, in every notation", async () => {
    const png8 = await solid(100, 50).png().toBuffer();
    for (const color of ["red", "#f00", "#ff0000", "#ff0000ff", "rgb(255,0,0)", "rgba(255, 0, 0, 1)"]) {
      const png = await okPng(await thumb(png8, `width=100&height=100&color=${encodeURIComponent(color)}`));
      assert.deepEqual(await pixelAt(png, 0, 0), [255, 0, 0, 255], `corner colour for ${color}`);
      assert.deepEqual(await pixelAt(png, 99, 99), [255, 0, 0, 255], `opposite corner for ${color}`);
      assert.deepEqual((await pixelAt(png, 50, 50)).slice(0, 3), [0, 0, 255]);
    }
    const half = await okPng(await thumb(png8, "width=100&height=100&color=%2300ff0080"));
    assert.deepEqual(await pixelAt(half, 0, 0), [0, 255, 0, 128]);
  });

  it("pads grey and grey+alpha images (8 and 16 bit) with the colour asked, not a grey of it", async () => {
    for (const [space, depth] of [
      ["b-w", "uchar"],
      ["grey16", "ushort"],
    ] as const) {
      for (const channels of [3, 4] as const) {
        const background = { r: 90, g: 90, b: 90, alpha: channels === 4 ? 0.5 : 1 };
        const grey = await solid(100, 50, background, channels).toColourspace(space).png().toBuffer();
        const meta = await sharp(grey).metadata();
        assert.deepEqual([meta.depth, meta.channels], [depth, channels - 2], `a real ${space} PNG`);
        const label = `${space}, ${meta.channels} channel(s)`;
        for (const [color, expected] of [
          ["#ff8000", [255, 128, 0, 255]],
          ["rgba(0, 128, 255, 0.5)", [0, 128, 255, 128]],
          ["#808080", [128, 128, 128, 255]],
        ] as const) {
          const png = await okPng(
            await thumb(grey, `width=100&height=100&color=${encodeURIComponent(color)}`),
          );
          assert.deepEqual(await pixelAt(png, 0, 0), expected, `${label}: padding for ${color}`);
          assert.deepEqual(await pixelAt(png, 99, 99), expected, `${label}: opposite padding for ${color}`);
          const inside = await pixelAt(png, 50, 50);
          assert.deepEqual(inside, [90, 90, 90, channels === 4 ? 128 : 255], `${label}: the image itself`);
        }
      }
    }
  });

  it("gives Pillow's exact sizes for every strategy", async () => {
    const image = await solid(400, 200).png().toBuffer();
    const cases: Array<[string, number, number]> = [
      ["pad", 300, 200],
      ["fit", 300, 200],
      ["contain", 300, 150],
      ["cover", 400, 200],
    ];
    for (const [strategy, width, height] of cases) {
      const png = await okPng(await thumb(image, `width=300&height=200&strategy=${strategy}`));
      const size = await sizeOf(png);
      assert.deepEqual([size.width, size.height], [width, height], strategy);
    }
  });

  it("handles extreme aspect ratios and 1×1 images", async () => {
    const sliver = await solid(1, 2000).png().toBuffer();
    assert.deepEqual(await sizeOf(await okPng(await thumb(sliver, "strategy=contain"))), {
      width: 1,
      height: 200,
      format: "png",
    });
    assert.deepEqual((await sizeOf(await okPng(await thumb(sliver, "strategy=fit")))).width, 300);
    const dot = await solid(1, 1).png().toBuffer();
    for (const strategy of ["pad", "fit", "cover", "contain"]) {
      const size = await sizeOf(await okPng(await thumb(dot, `width=7&height=5&strategy=${strategy}`)));
      const expected = strategy === "contain" ? [5, 5] : strategy === "cover" ? [7, 7] : [7, 5];
      assert.deepEqual([size.width, size.height], expected, strategy);
    }
  });

  it("applies EXIF orientation before sizing", async () => {
    // Stored 400×200, orientation 6 (rotate 90° clockwise): it is displayed 200×400.
    const rotated = await solid(400, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const png = await okPng(await thumb(rotated, "width=100&height=100&strategy=contain"));
    const size = await sizeOf(png);
    assert.deepEqual([size.width, size.height], [50, 100]);
  });

  it("reads every supported input format", async () => {
    const base = () => solid(64, 48, BLUE, 4);
    // One entry per row of THUMBNAIL_INPUTS (a row without samples does not type-check).
    const inputs: Record<ThumbnailInput, Record<string, Buffer>> = {
      JPEG: { jpeg: await base().jpeg().toBuffer() },
      PNG: {
        png8: await base().png().toBuffer(),
        png16: await base().toColourspace("rgb16").png().toBuffer(),
        palette: await base().png({ palette: true }).toBuffer(),
      },
      GIF: { gif: await base().gif().toBuffer() },
      WebP: { webp: await base().webp().toBuffer() },
      TIFF: { tiff: await base().tiff().toBuffer() },
      "AVIF/HEIF": { avif: await base().avif().toBuffer() },
      SVG: {
        svg: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48"><rect width="64" height="48" fill="blue"/></svg>',
        ),
      },
      BMP: { bmp: bmp24(64, 48, [0, 0, 255]) },
    };
    assert.deepEqual(
      Object.keys(inputs),
      THUMBNAIL_INPUTS.map((f) => f.name),
    );
    for (const [name, bytes] of Object.values(inputs).flatMap((samples) => Object.entries(samples))) {
      const png = await okPng(await thumb(bytes, "width=32&height=32&strategy=contain", `x.${name}`));
      const size = await sizeOf(png);
      assert.deepEqual([size.width, size.height], [32, 24], name);
    }
  });

  it("reads BMP, which libvips lacks, and refuses a huge one from its header", async () => {
    const png = await okPng(
      await thumb(bmp24(64, 48, [255, 0, 0]), "width=32&height=32&strategy=contain", "x.bmp"),
    );
    assert.deepEqual(await sizeOf(png), { width: 32, height: 24, format: "png" });
    assert.deepEqual(await pixelAt(png, 16, 12), [255, 0, 0, 255]);
    const huge = bmp24(4, 4, [0, 0, 0]);
    huge.writeInt32LE(100_000, 18);
    huge.writeInt32LE(100_000, 22);
    const res = await thumb(huge, "", "huge.bmp");
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "image_too_large");
    const truncated = bmp24(200, 200, [0, 0, 0]).subarray(0, 500);
    const bad = await thumb(truncated, "", "cut.bmp");
    assert.equal(bad.status, 400);
    assert.equal((await json(bad)).code, "corrupt_image");
  });

  it("uses the first frame of an animation", async () => {
    const frames = [await solid(40, 40, RED).png().toBuffer(), await solid(40, 40, BLUE).png().toBuffer()];
    const gif = await sharp(frames, { join: { animated: true } })
      .gif({ delay: [100, 100] })
      .toBuffer();
    assert.equal((await sharp(gif).metadata()).pages, 2);
    const png = await okPng(await thumb(gif, "width=20&height=20"));
    assert.deepEqual(await sizeOf(png), { width: 20, height: 20, format: "png" });
    const [r, , b] = await pixelAt(png, 10, 10);
    assert.ok(r > 200 && b < 50, "first (red) frame");
  });

  it("renders SVG without fetching anything it references", async () => {
    let hits = 0;
    const spy = http.createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => spy.listen(0, "127.0.0.1", r));
    const { port } = spy.address() as AddressInfo;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50">
      <image href="http://127.0.0.1:${port}/a.png" width="50" height="50"/>
      <image xlink:href="file:///etc/passwd" width="50" height="50"/>
      <rect width="10" height="10" fill="red"/></svg>`;
    const res = await thumb(Buffer.from(svg), "width=50&height=50");
    assert.ok(res.status === 200 || res.status === 400, `answered ${res.status}`);
    await res.arrayBuffer();
    spy.close();
    assert.equal(hits, 0, "the SVG renderer made no network request");
  });

  it("refuses a decompression bomb from its header, fast", async () => {
    const started = performance.now();
    const res = await thumb(pngBombHeader(60_000, 60_000), "", "bomb.png");
    assert.equal(res.status, 400);
    assert.equal((await json(res)).code, "image_too_large");
    assert.ok(performance.now() - started < 5000);
  });

  it("refuses an output above the pixel limit", async () => {
    const sliver = await solid(1, 2000).png().toBuffer();
    const res = await thumb(sliver, "width=1000&height=1000&strategy=cover");
    assert.equal(res.status, 400);
    const body = await json(res);
    assert.equal(body.code, "output_too_large");
    assert.match(body.detail, /1000×2000000/);
    // Pillow's cover is a resize, not a crop: a 3000×10 sliver covers 256×256 at 76800×256, as
    // Mandolin answers it; the refusal says so and names fit, which crops to the box.
    const wide = await solid(3000, 10).png().toBuffer();
    const cover = await json(await thumb(wide, "width=256&height=256&strategy=cover"));
    assert.equal(cover.code, "output_too_large");
    assert.match(cover.detail, /76800×256,.* A cover is never cropped .*; fit gives the box/);
    const fit = await thumb(wide, "width=256&height=256&strategy=fit");
    assert.equal(fit.status, 200);
    const size = await sharp(Buffer.from(await fit.arrayBuffer())).metadata();
    assert.deepEqual([size.width, size.height], [256, 256]);
  });

  it("answers 400 with a clear code for non-images, corrupt images and bad parameters", async () => {
    const expectations: Array<[Uint8Array, string, string, RegExp?]> = [
      [Buffer.from("just some text, not an image"), "", "unsupported_image"],
      [Buffer.alloc(0), "", "unsupported_image"],
      [(await solid(300, 300).jpeg().toBuffer()).subarray(0, 400), "", "corrupt_image"],
      [
        await solid(10, 10).png().toBuffer(),
        "strategy=stretch",
        "invalid_request",
        /pad, fit, cover, contain/,
      ],
      [await solid(10, 10).png().toBuffer(), "color=notacolour", "invalid_color", /CSS colour/],
      [await solid(10, 10).png().toBuffer(), "width=0", "invalid_request", /width/],
      [await solid(10, 10).png().toBuffer(), "height=10001", "invalid_request", /height/],
      [await solid(10, 10).png().toBuffer(), "width=abc", "invalid_request", /width/],
    ];
    for (const [bytes, query, code, detail] of expectations) {
      const res = await thumb(bytes, query);
      assert.equal(res.status, 400, `${code} for ${query || "body"}`);
      const body = await json(res);
      assert.equal(body.code, code, `${query}: ${body.detail}`);
      if (detail) assert.match(body.detail, detail);
    }
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("with UPLOAD_MEMORY_MAX, sends small images to the thumbnail process as bytes: the same PNGs", async () => {
    const inMemory = await startFilesServer({ MAX_IMAGE_PIXELS: "50000000", UPLOAD_MEMORY_MAX: "1048576" });
    try {
      const svg = Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="red"/></svg>',
      );
      const images: Array<[Buffer, string]> = [
        [await solid(120, 80).jpeg().toBuffer(), "x.jpg"],
        [bmp24(64, 48, [10, 200, 30]), "x.bmp"],
        [svg, "x.svg"],
      ];
      for (const [bytes, name] of images) {
        const query = "width=50&height=50&strategy=pad&color=white";
        const fromFile = await okPng(await thumb(bytes, query, name));
        const fromBytes = await okPng(
          await postFile(`${inMemory.url}/converter/thumbnail?${query}`, bytes, name),
        );
        assert.ok(fromBytes.equals(fromFile), `${name}: same PNG from bytes as from a temp file`);
      }
      const empty = await postFile(`${inMemory.url}/converter/thumbnail`, Buffer.alloc(0), "empty.png");
      assert.equal(empty.status, 400);
      assert.equal((await json(empty)).code, "unsupported_image");
    } finally {
      await inMemory.close();
    }
  });

  it("honours MAX_IMAGE_PIXELS", async () => {
    const small = await startFilesServer({ MAX_IMAGE_PIXELS: "1000" });
    try {
      const res = await postFile(`${small.url}/converter/thumbnail`, await solid(100, 100).png().toBuffer());
      assert.equal(res.status, 400);
      assert.equal((await json(res)).code, "image_too_large");
    } finally {
      await small.close();
    }
  });
});
