/**
 * The structure-aware fuzz cases: each is a request for the files service built from a
 * structure (an archive tree, an image header, a PDF or OLE table, a YARA syntax tree) and a
 * one-line description that says which structure it was, so a crash can be named and replayed.
 */
import fc from "fast-check";
import { type HostileRequest, multipart } from "../../helpers/hostile.ts";
import { compressedStream, sevenZipArchive } from "../../helpers/sevenzip.ts";
import { buildLayer, describeLayer, type Layer, layerTree } from "./archives.ts";
import { buildOle, buildPdf, oleCase, pdfCase } from "./documents.ts";
import { buildImage, describeImage, imageCase } from "./images.ts";
import { ruleSet } from "./rules.ts";

export interface StructuredCase {
  family: "archive" | "image" | "pdf" | "ole" | "yara";
  /** What the structure was, in one line. */
  description: string;
  /** Builds the request when it is sent: 5,000 built at once would hold gigabytes. */
  request: () => HostileRequest;
}

/** 7z, xz and bzip2 bombs made once by 7-Zip (a 7z layer cannot be written field by field here). */
export async function archiveSeeds(maxBytes = 64 << 20): Promise<Buffer[]> {
  const zeros = Buffer.alloc(maxBytes);
  return [
    await sevenZipArchive({ "zeros.bin": zeros, "b/zeros2.bin": zeros }),
    await sevenZipArchive({
      "../escape.txt": "x",
      "utf16.txt": Buffer.from("Ab".repeat(1 << 20), "utf16le"),
    }),
    await compressedStream(zeros, "xz"),
    await compressedStream(zeros, "bzip2"),
  ];
}

function upload(path: string, name: string, file: Buffer, rules?: string): HostileRequest {
  const parts = [
    ...(rules === undefined ? [] : [{ name: "rules", value: rules }]),
    { name: "file", filename: name, value: file },
  ];
  const { body, contentType } = multipart(parts);
  return { kind: path, path, headers: { "content-type": contentType }, body };
}

const ARCHIVE_NAMES = ["a.zip", "a.tar", "a.gz", "a.7z", "a.bin", "a.docx", "a.jar"];
const SAMPLE = Buffer.concat([
  Buffer.from("MZ\x90\x00PE\0\0"),
  Buffer.alloc(8192, 0x61),
  Buffer.from("spyware"),
]);

/** `maxBytes` caps every bomb's unpacked size (a short run keeps its cases quick). */
export function structuredCase(seeds: Buffer[], maxBytes = 64 << 20): fc.Arbitrary<StructuredCase> {
  const tree = layerTree(seeds.length).map((t) => capLeaves(t, maxBytes));
  const archive = fc.tuple(tree, fc.constantFrom(...ARCHIVE_NAMES)).map(
    ([tree, name]): StructuredCase => ({
      family: "archive",
      description: `${name}: ${describeLayer(tree)}`,
      request: () => upload("/analyzer/extractor", name, buildLayer(tree, seeds)),
    }),
  );
  const image = fc
    .tuple(imageCase, fc.constantFrom("/converter/thumbnail?width=64&height=64", "/analyzer/extractor"))
    .map(
      ([c, path]): StructuredCase => ({
        family: "image",
        description: `${path}: ${describeImage(c)}`,
        request: () => upload(path, `i.${c.format}`, buildImage(c)),
      }),
    );
  const pdf = pdfCase
    .map((c) => ({ ...c, bombBytes: Math.min(c.bombBytes, maxBytes) }))
    .map(
      (c): StructuredCase => ({
        family: "pdf",
        description: `pdf ${JSON.stringify(c)}`,
        request: () => upload("/analyzer/extractor", "d.pdf", buildPdf(c)),
      }),
    );
  const ole = fc.tuple(oleCase, fc.constantFrom("d.doc", "m.msg", "x.xls")).map(
    ([c, name]): StructuredCase => ({
      family: "ole",
      description: `${name} ${JSON.stringify(c)}`,
      request: () => upload("/analyzer/extractor", name, buildOle(c)),
    }),
  );
  const yara = ruleSet.map(
    (rules): StructuredCase => ({
      family: "yara",
      description: `yara ${rules.length} chars: ${rules.replace(/\s+/g, " ").slice(0, 160)}`,
      request: () => upload("/analyzer/rulematch", "s.exe", SAMPLE, rules),
    }),
  );
  return fc.oneof(archive, image, pdf, ole, yara);
}

function capLeaves(layer: Layer, max: number): Layer {
  if (layer.kind === "leaf") return { ...layer, bytes: Math.min(layer.bytes, max) };
  if (layer.kind === "seed") return layer;
  return { ...layer, inner: capLeaves(layer.inner, max) };
}
