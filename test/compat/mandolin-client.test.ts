/**
 * Colander's artifact tasks against a real files server: the exact requests they send through
 * mandolin-python-client (core/tasks/artifact_tasks.py), answers validated against the schemas
 * written from Mandolin's pydantic models, and the keys Colander's pages read.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { simplePdf } from "../helpers/documents.ts";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import { exiftoolTag } from "../helpers/producers.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { assertFitsSchema, MANDOLIN_SCHEMAS } from "./mandolin-schema.ts";
import { clientCall, colanderTempFile, urllib3Multipart } from "./mandolin-wire.ts";

/** `AnalyzersApi.analyze_with_tika_analyzer_tika_post(temp_file_path)` as `_mandolin_tika_analysis` calls it. */
async function colanderTika(server: TestFilesServer, originalName: string, bytes: Buffer) {
  const multipart = urllib3Multipart([], [["file", colanderTempFile(originalName, bytes)]]);
  const answer = await clientCall(server.url, "/analyzer/tika", multipart);
  assert.equal(answer.status, 200, answer.body.toString());
  assert.match(String(answer.headers["content-type"]), /^application\/json/);
  const body = JSON.parse(answer.body.toString("utf8"));
  assertFitsSchema(MANDOLIN_SCHEMAS.tika, body, `/analyzer/tika for ${originalName}`);
  return body;
}

describe("Colander → /analyzer/tika (mandolin-python-client's request)", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  it("a PDF: content, success and the tika entry Colander stores", async () => {
    const pdf = simplePdf("Quarterly report of the observatory", {
      title: "Observatory report",
      author: "Ana",
      created: "D:20250301120000Z",
    });
    const body = await colanderTika(server, "report.pdf", pdf);
    assert.equal(body.success, true);
    assert.match(body.content, /Quarterly report of the observatory/);
    const entry = body.processors.tika;
    assert.deepEqual(
      [entry.success, entry.processor_name, entry.processor_url],
      [true, "tika", "/analyzer/tika"],
    );
    assert.equal(entry.analysis.title, "Observatory report");
    assert.equal(entry.analysis.type, "application/pdf");
    assert.equal(entry.analysis.content_length, pdf.length);
  });

  it("one implementation: the tika analysis is the extractor's, plus Tika's geo keys", async () => {
    const pdf = simplePdf("Same text both ways", {
      title: "Twice",
      author: "Bo",
      created: "D:20240101000000Z",
    });
    const viaTika = await colanderTika(server, "twice.pdf", pdf);
    const form = new FormData();
    form.append(
      "file",
      new Blob([new Uint8Array(pdf)], { type: "application/pdf" }),
      viaTika.processors.tika.analysis.extra.file.name,
    );
    const viaExtractor = await json(
      await fetch(`${server.url}/analyzer/extractor`, { method: "POST", body: form }),
    );
    assert.equal(viaTika.content, viaExtractor.content);
    assert.deepEqual(viaTika.processors.tika.analysis, viaExtractor.processors.extractor.analysis);
  });

  it("a photo with EXIF GPS: extra.geo.lat / extra.geo.long, as the artifact page reads them", {
    skip: skipUnlessCommands("exiftool"),
  }, async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#446688" } })
      .jpeg()
      .toBuffer();
    const tagged = await exiftoolTag(jpeg, "jpg", {
      "EXIF:GPSLatitude": 48.8584,
      "EXIF:GPSLatitudeRef": "N",
      "EXIF:GPSLongitude": 2.2945,
      "EXIF:GPSLongitudeRef": "W",
      "EXIF:GPSAltitude": 35,
      "EXIF:GPSAltitudeRef": 0,
    });
    const body = await colanderTika(server, "photo.jpg", tagged);
    const extra = body.processors.tika.analysis.extra;
    assert.deepEqual(extra.geo, { lat: "48.8584", long: "-2.2945", alt: "35" });
    assert.equal(extra.gps.longitude, -2.2945, "Loupe's own gps namespace stays");
  });

  it("a file Loupe cannot read: success false with error and error_short, still Mandolin's shape", async () => {
    const broken = Buffer.concat([
      Buffer.from("%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R"),
      Buffer.alloc(64, 0x41),
    ]);
    const body = await colanderTika(server, "broken.pdf", broken);
    assert.equal(body.success, false);
    assert.equal(body.content, null);
    assert.equal(body.error_short, "parse_error");
    assert.equal(body.processors.tika.success, false);
    assert.equal(body.processors.tika.analysis, null);
  });

  it("a file without GPS has no geo namespace (the page shows no map)", async () => {
    const body = await colanderTika(server, "notes.txt", Buffer.from("plain notes, no place\n"));
    assert.equal(body.processors.tika.analysis.extra.geo, undefined);
    assert.equal(body.content, "plain notes, no place");
  });
});

describe("the generated client's other operations (yara, thumbnail)", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({ YARA_WORKERS: "1" });
  });
  after(() => server.close());

  const RULES =
    'rule spy : android { meta: family = "pegasus" score = 9 strings: $a = "pegasus" condition: $a }';

  /** `AnalyzersApi.analyze_with_yara_analyzer_yara_post(file, rules)`: the rules field goes before the file. */
  const yara = (bytes: Buffer, rules: string) =>
    clientCall(
      server.url,
      "/analyzer/yara",
      urllib3Multipart([["rules", rules]], [["file", colanderTempFile("sample.bin", bytes)]]),
    );

  it("/analyzer/yara answers Mandolin's YaraResult, the same scan as /analyzer/rulematch", async () => {
    const sample = Buffer.from("xx pegasus yy pegasus");
    const answer = await yara(sample, RULES);
    assert.equal(answer.status, 200, answer.body.toString());
    const body = JSON.parse(answer.body.toString("utf8"));
    assertFitsSchema(MANDOLIN_SCHEMAS.yara, body, "/analyzer/yara");
    const entry = body.processors.yara;
    assert.deepEqual(
      [body.success, entry.processor_name, entry.processor_url],
      [true, "yara", "/analyzer/yara"],
    );
    assert.equal(entry.analysis.rules, RULES, "the client sends the rules as they are (no CRLF rewriting)");
    const [match] = entry.analysis.matches;
    assert.deepEqual(
      [match.rule, match.tags, match.namespace, match.meta],
      ["spy", ["android"], "default", { family: "pegasus", score: 9 }],
    );
    assert.deepEqual(match.strings[0].instances, [
      { offset: 3, matched_length: 7, plaintext: "pegasus" },
      { offset: 14, matched_length: 7, plaintext: "pegasus" },
    ]);
    const viaRulematch = await json(
      await postFile(`${server.url}/analyzer/rulematch`, sample, "sample.bin", { rules: RULES }),
    );
    assert.deepEqual(entry.analysis, viaRulematch.processors.rulematch.analysis);
  });

  it("/analyzer/yara refuses rules that do not compile with a 400, as Mandolin does", async () => {
    const answer = await yara(Buffer.from("x"), "rule broken { condition: }");
    assert.equal(answer.status, 400);
    const body = JSON.parse(answer.body.toString("utf8"));
    assert.equal(body.code, "invalid_rules");
    assert.match(body.detail, /do not compile/);
  });

  it("/converter/thumbnail as `_mandolin_thumbnail` calls it (fit 256×256, Accept: application/json)", async () => {
    const png = await sharp({ create: { width: 640, height: 320, channels: 3, background: "#aa3300" } })
      .png()
      .toBuffer();
    const multipart = urllib3Multipart([], [["file", colanderTempFile("wide.png", png)]]);
    const answer = await clientCall(
      server.url,
      "/converter/thumbnail?width=256&height=256&strategy=fit",
      multipart,
    );
    assert.equal(answer.status, 200, answer.body.toString());
    assert.equal(answer.headers["content-type"], "image/png");
    const meta = await sharp(answer.body).metadata();
    // Pillow's ImageOps.fit crops to the exact box.
    assert.deepEqual([meta.format, meta.width, meta.height], ["png", 256, 256]);
  });
});
