/**
 * Colander's artifact tasks against a real files server: the exact requests they send through
 * mandolin-python-client (core/tasks/artifact_tasks.py), answers validated against the schemas
 * written from Mandolin's pydantic models, and the keys Colander's pages read.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { simplePdf } from "../helpers/documents.ts";
import { startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
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

  it("a file without GPS has no geo namespace (the page shows no map)", async () => {
    const body = await colanderTika(server, "notes.txt", Buffer.from("plain notes, no place\n"));
    assert.equal(body.processors.tika.analysis.extra.geo, undefined);
    assert.equal(body.content, "plain notes, no place");
  });
});
