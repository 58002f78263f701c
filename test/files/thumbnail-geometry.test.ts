import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  containSize,
  coverSize,
  outputSize,
  padOffsets,
  pyRound,
} from "../../src/files/converters/geometry.ts";

describe("thumbnail geometry (Pillow ImageOps)", () => {
  it("rounds halves to even like Python", () => {
    assert.deepEqual([0.5, 1.5, 2.5, 3.5, 2.4, 2.6].map(pyRound), [0, 2, 2, 4, 2, 3]);
  });

  it("computes contain, cover, fit and pad sizes as Pillow does", () => {
    const wide = { width: 400, height: 200 };
    const box = { width: 300, height: 200 };
    assert.deepEqual(containSize(wide, box), { width: 300, height: 150 });
    assert.deepEqual(coverSize(wide, box), { width: 400, height: 200 });
    assert.deepEqual(outputSize("fit", wide, box), box);
    assert.deepEqual(outputSize("pad", wide, box), box);
    assert.deepEqual(padOffsets({ width: 300, height: 150 }, box), { left: 0, top: 25 });

    const tall = { width: 100, height: 1000 };
    assert.deepEqual(containSize(tall, box), { width: 20, height: 200 });
    assert.deepEqual(coverSize(tall, box), { width: 300, height: 3000 });
    assert.deepEqual(padOffsets({ width: 20, height: 200 }, box), { left: 140, top: 0 });
    // (300 - 45) / 2 = 127.5 → Python rounds to 128 (even)
    assert.deepEqual(padOffsets({ width: 45, height: 200 }, box), { left: 128, top: 0 });
  });

  it("never produces a zero-sized side for extreme aspect ratios", () => {
    assert.deepEqual(containSize({ width: 1, height: 2000 }, { width: 300, height: 200 }), {
      width: 1,
      height: 200,
    });
    assert.deepEqual(coverSize({ width: 1, height: 2000 }, { width: 1000, height: 1000 }), {
      width: 1000,
      height: 2_000_000,
    });
  });
});
