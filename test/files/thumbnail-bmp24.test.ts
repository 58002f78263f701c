import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decode } from "bmp-ts";
import { decodeBmp } from "../../src/files/converters/bmp.ts";
import { decodeBmp24 } from "../../src/files/converters/bmp24.ts";

/** Deterministic bytes, so a failure names a case that can be replayed. */
function noise(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let s = seed;
  for (let i = 0; i < length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

interface Shape {
  width: number;
  height: number;
  dibSize?: number;
  compression?: number;
  colors?: number;
  /** Bytes cut from the end of the file. */
  cut?: number;
}

/** A 24-bit BMP with random pixels, a DIB header of `dibSize` bytes and `colors` palette entries. */
function bmp({ width, height, dibSize = 40, compression = 0, colors = 0, cut = 0 }: Shape): Buffer {
  const rows = Math.abs(height);
  const pixelStart = 14 + dibSize + 4 * colors + (compression === 3 && dibSize === 40 ? 12 : 0);
  const rowSize = Math.ceil((width * 3) / 4) * 4;
  const out = noise(pixelStart + rowSize * rows, width * 31 + rows * 7 + dibSize + colors);
  out.write("BM", 0, "latin1");
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(pixelStart, 10);
  out.writeUInt32LE(dibSize, 14);
  out.writeUInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(compression, 30);
  out.writeUInt32LE(colors, 46);
  return out.subarray(0, out.length - cut);
}

/** What the converter decoded before the fast path: bmp-ts, then an all-zero alpha made opaque. */
function viaBmpTs(bytes: Buffer): Buffer {
  const data = decode(bytes, { toRGBA: true }).data;
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return data;
}

describe("24-bit BMP fast path", () => {
  const shapes: Shape[] = [
    ...[1, 2, 3, 4, 5, 6, 7, 9, 640].map((width) => ({ width, height: 5 })),
    { width: 7, height: -6 },
    { width: 5, height: 3, dibSize: 52 },
    { width: 5, height: 3, dibSize: 56 },
    { width: 6, height: -3, dibSize: 108 },
    { width: 3, height: 4, dibSize: 124 },
    { width: 3, height: 4, compression: 3 },
    { width: 3, height: 4, colors: 2 },
    { width: 5, height: 2, cut: 1 }, // only the last row's padding is missing: bmp-ts never reads it
  ];
  for (const shape of shapes) {
    it(`gives bmp-ts's pixels for ${JSON.stringify(shape)}`, () => {
      const bytes = bmp(shape);
      const fast = decodeBmp24(bytes);
      assert.ok(fast, "the fast path takes this file");
      assert.equal(fast.width, shape.width);
      assert.equal(fast.height, Math.abs(shape.height));
      assert.ok(fast.data.equals(viaBmpTs(bytes)));
      assert.ok(Buffer.from(decodeBmp(bytes).data).equals(fast.data));
    });
  }

  it("leaves short files, other depths and unknown headers to bmp-ts", () => {
    const short = bmp({ width: 5, height: 4, cut: 2 });
    assert.equal(decodeBmp24(short), null);
    assert.throws(() => decodeBmp(short), RangeError);
    const eightBit = bmp({ width: 4, height: 4 });
    eightBit.writeUInt16LE(8, 28);
    assert.equal(decodeBmp24(eightBit), null);
    const hugePalette = bmp({ width: 2, height: 2, colors: 1 });
    hugePalette.writeUInt32LE(1_000_000, 46);
    assert.equal(decodeBmp24(hugePalette), null);
    const os2 = bmp({ width: 8, height: 4, dibSize: 12 });
    assert.throws(() => decodeBmp(os2), /Unsupported BMP header size 12/);
  });
});
