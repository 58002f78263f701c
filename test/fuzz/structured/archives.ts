/**
 * Archive structures for the structure-aware fuzz: nested zip/gzip/tar layers of chosen widths,
 * with declared sizes that lie, hostile entry names, and leaves that are bombs (zero-filled,
 * UTF-16-looking) or 7z/xz/bzip2 seeds made by 7-Zip once. Sizes are written by hand (not by a
 * library) precisely so that they can disagree with the data.
 */
import { crc32, deflateRawSync, gzipSync } from "node:zlib";
import fc from "fast-check";

/** A declared size: the truth, or a lie of a given shape. */
export type SizeLie = "true" | "zero" | "smaller" | "larger" | "max";

export type Layer =
  | { kind: "leaf"; fill: "zeros" | "utf16" | "text" | "random"; bytes: number }
  | { kind: "seed"; index: number }
  | { kind: "zip" | "tar"; width: number; name: string; lie: SizeLie; inner: Layer }
  | { kind: "gzip"; lie: SizeLie; inner: Layer };

export const HOSTILE_NAMES = [
  "data.bin",
  "../../../../tmp/escape.txt",
  "/etc/passwd",
  "a/../../b.txt",
  "..\\..\\windows\\win.ini",
  "nul\u0000.txt",
  "x".repeat(300),
  "dup.txt",
  "名前\u202eexe.txt",
  "",
];

const leaf: fc.Arbitrary<Layer> = fc.record({
  kind: fc.constant("leaf" as const),
  fill: fc.constantFrom("zeros", "utf16", "text", "random") as fc.Arbitrary<
    "zeros" | "utf16" | "text" | "random"
  >,
  bytes: fc.oneof(fc.nat(4096), fc.constantFrom(1 << 20, 8 << 20, 32 << 20)),
});
const lie = fc.constantFrom("true", "true", "zero", "smaller", "larger", "max") as fc.Arbitrary<SizeLie>;

/** Nesting up to `depth` layers; `seeds` archives (7z, xz, bzip2) may stand at the bottom. */
export function layerTree(seeds: number, depth = 4): fc.Arbitrary<Layer> {
  const bottom =
    seeds > 0
      ? fc.oneof(leaf, fc.record({ kind: fc.constant("seed" as const), index: fc.nat(seeds - 1) }))
      : leaf;
  const tree = fc.letrec<{ layer: Layer }>((tie) => ({
    layer: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      bottom,
      fc.record({
        kind: fc.constantFrom("zip", "tar") as fc.Arbitrary<"zip" | "tar">,
        width: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 12 })),
        name: fc.constantFrom(...HOSTILE_NAMES),
        lie,
        inner: tie("layer"),
      }),
      fc.record({ kind: fc.constant("gzip" as const), lie, inner: tie("layer") }),
    ),
  }));
  return fc.oneof(
    tree.layer,
    // Nesting as deep as asked, whatever the random tree would do.
    fc
      .tuple(fc.integer({ min: 2, max: depth }), leaf)
      .map(([n, l]) =>
        Array.from({ length: n }).reduce<Layer>(
          (inner, _, i) =>
            i % 2
              ? { kind: "gzip", lie: "true", inner }
              : { kind: "zip", width: 2, name: "n.zip", lie: "true", inner },
          l,
        ),
      ),
  );
}

function leafBytes(l: Extract<Layer, { kind: "leaf" }>): Buffer {
  switch (l.fill) {
    case "zeros":
      return Buffer.alloc(l.bytes);
    case "utf16":
      return Buffer.from("Ab".repeat(Math.ceil(l.bytes / 4)), "utf16le").subarray(0, l.bytes);
    case "text":
      return Buffer.from("spyware report line\n".repeat(Math.ceil(l.bytes / 20))).subarray(0, l.bytes);
    default:
      return Buffer.from(Array.from({ length: Math.min(l.bytes, 4096) }, (_, i) => (i * 2654435761) >>> 24));
  }
}

const declared = (real: number, l: SizeLie): number =>
  ({ true: real, zero: 0, smaller: Math.floor(real / 2), larger: real * 2 + 1, max: 0xffffffff })[l] >>> 0;

/** The bytes of a layer tree, each layer built around the bytes of the one inside. */
export function buildLayer(layer: Layer, seeds: Buffer[]): Buffer {
  switch (layer.kind) {
    case "leaf":
      return leafBytes(layer);
    case "seed":
      return seeds[layer.index] ?? Buffer.alloc(0);
    case "gzip":
      return gzipWithSize(buildLayer(layer.inner, seeds), layer.lie);
    case "zip":
      return zipOf(layer, buildLayer(layer.inner, seeds));
    case "tar":
      return tarOf(layer, buildLayer(layer.inner, seeds));
  }
}

function gzipWithSize(data: Buffer, l: SizeLie): Buffer {
  const gz = gzipSync(data, { level: 9 });
  gz.writeUInt32LE(declared(data.length, l), gz.length - 4); // ISIZE, the trailer's size field
  return gz;
}

/** A deflated zip holding `width` copies of `data`, every size field told by `lie`. */
function zipOf(layer: { width: number; name: string; lie: SizeLie }, data: Buffer): Buffer {
  const packed = deflateRawSync(data, { level: 9 });
  const crc = crc32(data);
  const size = declared(data.length, layer.lie);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (let i = 0; i < layer.width; i++) {
    const name = Buffer.from(i === 0 || layer.name === "dup.txt" ? layer.name : `${i}-${layer.name}`);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(layer.width, 8);
  end.writeUInt16LE(layer.width, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** A ustar archive of `width` copies, with the header's octal size told by `lie`. */
function tarOf(layer: { width: number; name: string; lie: SizeLie }, data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < layer.width; i++) {
    const header = Buffer.alloc(512);
    header.write((i === 0 ? layer.name : `${i}-${layer.name}`).slice(0, 99), 0, "utf8");
    header.write("0000644\0", 100);
    header.write("0000000\0", 108);
    header.write("0000000\0", 116);
    header.write(`${declared(data.length, layer.lie).toString(8).padStart(11, "0").slice(-11)}\0`, 124);
    header.write("00000000000\0", 136);
    header.write("        ", 148);
    header.write("0", 156);
    header.write("ustar\u000000", 257);
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    parts.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** A short description of a tree, for reports ("zip×6(gzip(zeros 32 MiB))"). */
export function describeLayer(layer: Layer): string {
  switch (layer.kind) {
    case "leaf":
      return `${layer.fill} ${layer.bytes} B`;
    case "seed":
      return `seed#${layer.index}`;
    case "gzip":
      return `gzip[${layer.lie}](${describeLayer(layer.inner)})`;
    default:
      return `${layer.kind}×${layer.width}[${layer.lie}, ${JSON.stringify(layer.name.slice(0, 30))}](${describeLayer(layer.inner)})`;
  }
}
