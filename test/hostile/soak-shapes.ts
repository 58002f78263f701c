/**
 * The hostile shapes of the soak (test/hostile/soak.ts): every case of the hostile corpus — YARA
 * rule sets, images, extractor bombs and parser attacks, executables — plus what the corpus holds
 * no file for: password guessing on costly 7z archives, over-size bodies, hostile `/analyzer/all`
 * requests and uploads cut off or stalled. Each names the answers a safe service may give; its
 * payload is built once (`prepare`), before the clock starts.
 */
import { executableCases } from "./executable-cases.ts";
import { type ExtractCase, extractCases, zipOfZips } from "./extract-cases.ts";
import { imageCaseGroups } from "./image-cases.ts";
import { costlyArchiveShapes } from "./soak-archives.ts";
import { multipart, type Shape, type SoakLimits } from "./soak-requests.ts";
import { cutUploadShapes } from "./soak-uploads.ts";
import { FILE_BOUNDED_LOOP, LOOP_FILE, YARA_CASES } from "./yara-cases.ts";

const STOPPED = ["200:partial", "200:resource_limit", "200:timeout"];
/** Any answer in the error model: a result, a partial one, or an entry error. */
const BOUNDED = ["200:ok", ...STOPPED, "200:parse_error", "200:engine_error"];

function yaraShapes(): Shape[] {
  const runaway = {
    name: "runaway loop bounded by the file",
    rules: FILE_BOUNDED_LOOP,
    file: LOOP_FILE,
    accept: ["200:timeout"],
  };
  return [...YARA_CASES, runaway].map((c) =>
    multipart({
      kind: "yara",
      name: c.name,
      route: "/analyzer/rulematch",
      processor: "rulematch",
      accept: c.accept,
      build: () => ({ bytes: c.file ?? "hostile sample", filename: "c.bin", fields: { rules: c.rules } }),
    }),
  );
}

async function imageShapes(): Promise<Shape[]> {
  // External references go to TEST-NET-1 (unroutable): nothing may ever call it.
  const groups = await imageCaseGroups("http://192.0.2.1:9");
  return groups.flatMap(([, cases]) =>
    cases.map((c) =>
      multipart({
        kind: "image",
        name: c.name,
        route: "/converter/thumbnail",
        accept: c.codes.map((code) => (code === "thumbnail" ? "200:png" : `400:${code}`)),
        build: () => ({ bytes: c.bytes, filename: c.filename, ...(c.query ? { query: c.query } : {}) }),
      }),
    ),
  );
}

const extractShape = (
  kind: string,
  c: Pick<ExtractCase, "name" | "filename">,
  accept: string[],
  bytes: () => Promise<Buffer> | Buffer,
) =>
  multipart({
    kind,
    name: c.name,
    route: "/analyzer/extractor",
    processor: "extractor",
    accept,
    build: async () => ({ bytes: await bytes(), filename: c.filename }),
  });

/** Requests that hit the limits of the upload itself, and of `/analyzer/all`. */
function bodyShapes(limits: SoakLimits): Shape[] {
  return [
    multipart({
      kind: "body",
      name: "a rules field one byte over MAX_FORM_FIELD_SIZE",
      route: "/analyzer/rulematch",
      accept: ["400:field_too_large"],
      build: () => ({
        bytes: "x",
        filename: "x.txt",
        fields: { rules: `rule a { condition: true } //${"x".repeat(limits.maxFieldSize)}` },
      }),
    }),
    multipart({
      kind: "body",
      name: "/analyzer/all: a zip of 6 zips of 100 MiB through every processor",
      route: "/analyzer/all",
      accept: ["200"],
      build: () => ({ bytes: zipOfZips(6, 100), filename: "bomb.zip" }),
    }),
    multipart({
      kind: "body",
      name: "/analyzer/all: 10,000 unknown processors",
      route: "/analyzer/all",
      accept: ["400:unknown_processor"],
      build: () => ({
        bytes: "x",
        filename: "a.txt",
        fields: { processors: Array.from({ length: 10_000 }, (_, i) => `p${i}`).join(",") },
      }),
    }),
  ];
}

/** Every hostile shape, the kinds taking turns (a lane meets every kind within a few requests). */
export async function hostileShapes(limits: SoakLimits): Promise<Shape[]> {
  return takingTurns([
    ...yaraShapes(),
    ...(await imageShapes()),
    ...extractCases.map((c) =>
      extractShape("extract", c, c.expect === "partial" ? STOPPED : BOUNDED, c.bytes),
    ),
    ...executableCases.map((c) => extractShape("executable", c, BOUNDED, c.bytes)),
    ...costlyArchiveShapes(),
    ...bodyShapes(limits),
    ...cutUploadShapes(limits),
  ]);
}

/** The shapes reordered so that each kind comes in turn: y, i, e, x, a, b, u, y, i, e… */
function takingTurns(shapes: Shape[]): Shape[] {
  const byKind = Map.groupBy(shapes, (s) => s.kind);
  const longest = Math.max(...[...byKind.values()].map((list) => list.length));
  return Array.from({ length: longest }, (_, i) =>
    [...byKind.values()].flatMap((list) => list[i] ?? []),
  ).flat();
}
