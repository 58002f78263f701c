/**
 * The extractor on files made by real producers: LibreOffice (office documents, EPUB, PDF),
 * exiftool (image metadata), ffmpeg (tagged audio and video), and text in the encodings
 * investigators meet. Each document carries known sentences, a title, an author and a date.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { extractImage } from "../../src/files/processors/extractor/formats/image.ts";
import { extractOk, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import {
  convertWithLibreOffice,
  type DocumentMeta,
  flatPresentation,
  flatSpreadsheet,
  flatText,
} from "../helpers/libreoffice.ts";
import { exiftoolTag, ffmpegMedia, heifEncode, type MediaTags, pdfinfo } from "../helpers/producers.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

const EN = "The investigators found the spyware on the journalist's phone after a careful forensic analysis.";
const FR =
  "Les enquêteurs ont trouvé le logiciel espion sur le téléphone du journaliste après une analyse minutieuse.";
const DE =
  "Die Ermittler fanden die Spionagesoftware auf dem Telefon der Journalistin nach einer sorgfältigen Analyse.";
const ES =
  "Los investigadores encontraron el programa espía en el teléfono del periodista después de un análisis cuidadoso.";

const OOXML = "application/vnd.openxmlformats-officedocument";
const ODF = "application/vnd.oasis.opendocument";

const frMeta: DocumentMeta = {
  title: "Rapport d’enquête",
  creator: "Équipe CERT",
  created: "2026-03-14T09:30:00",
  language: "fr-FR",
  subject: "Logiciel espion",
  keywords: ["pegasus", "forensique"],
};
const esMeta: DocumentMeta = {
  title: "Hoja de cálculo",
  creator: "Ana Núñez",
  created: "2025-12-01T10:00:00",
  language: "es-ES",
};
const deMeta: DocumentMeta = {
  title: "Vortrag über Überwachung",
  creator: "Jana Groß",
  created: "2024-05-06T07:08:09",
  language: "de-DE",
};
const enMeta: DocumentMeta = {
  title: "Locked report",
  creator: "CERT team",
  created: "2026-01-02T03:04:05",
  language: "en-GB",
};

/** Every office fixture, in one LibreOffice build (a handful of soffice runs). */
function officeFixtures() {
  const pdfA2 = 'pdf:writer_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"}}';
  const encrypted =
    'pdf:writer_pdf_Export:{"EncryptFile":{"type":"boolean","value":"true"},"PermissionPassword":{"type":"string","value":"owner-only"},"RestrictPermissions":{"type":"boolean","value":"true"},"Changes":{"type":"long","value":"0"}}';
  // 11 sheets: a reader sorting sheet file names as strings would put sheet10 before sheet2.
  const sheets: Record<string, Array<Array<string | number>>> = {
    Resumen: [
      ["Nombre", "Valor"],
      [ES, 42],
    ],
  };
  for (let i = 2; i <= 11; i++) sheets[`Hoja ${i}`] = [[`celda ${i}`, i * 1.5]];
  return convertWithLibreOffice([
    {
      source: "rapport.fodt",
      content: flatText(frMeta, "Première page", [
        [FR, "Deuxième phrase."],
        [`Page deux : ${FR}`],
        ["Page trois."],
      ]),
      to: ["docx", "odt", "epub", pdfA2],
    },
    { source: "locked.fodt", content: flatText(enMeta, "Locked", [[EN]]), to: [encrypted] },
    { source: "hoja.fods", content: flatSpreadsheet(esMeta, sheets), to: ["xlsx", "ods"] },
    {
      source: "folien.fodp",
      content: flatPresentation(
        deMeta,
        Array.from({ length: 11 }, (_, i) => ({
          title: `Folie ${i + 1}`,
          body: i === 0 ? [DE] : [`Inhalt ${i + 1}`],
        })),
      ),
      to: ["pptx", "odp"],
    },
  ]);
}

describe("extractor on files made by real producers", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer();
  });
  after(() => server.close());

  const extract = (bytes: Uint8Array | string, name?: string) => extractOk(server, bytes, name);

  describe("office documents written by LibreOffice", {
    skip: skipUnlessCommands("soffice", "pdfinfo"),
  }, () => {
    let docs: Record<string, Buffer>;
    before(async () => {
      docs = await officeFixtures();
    });
    const doc = (name: string) => {
      const bytes = docs[name];
      assert.ok(bytes, `LibreOffice wrote ${name}`);
      return bytes;
    };

    it("DOCX and ODT: text, title, author, creation date, language, keywords", async () => {
      for (const [name, type] of [
        ["rapport.docx", `${OOXML}.wordprocessingml.document`],
        ["rapport.odt", `${ODF}.text`],
      ] as const) {
        const { content, analysis } = await extract(doc(name), "upload.bin");
        assert.equal(analysis.type, type, name);
        assert.match(content, /^Première page\n/, name);
        assert.ok(content.includes(FR), name);
        assert.ok(content.indexOf("Deuxième phrase") < content.indexOf("Page trois"), name);
        assert.equal(analysis.title, "Rapport d’enquête", name);
        assert.equal(analysis.created, "2026-03-14T09:30:00.000Z", name);
        assert.equal(analysis.language, "fr", name);
        assert.equal(analysis.extra.dc.creator, "Équipe CERT", name);
        assert.equal(analysis.extra.dc.subject, "Logiciel espion", name);
        // LibreOffice joins keywords with a space in OOXML, ODF keeps one element per keyword.
        assert.match(analysis.extra.dc.keywords, /^pegasus,? forensique$/, name);
        assert.equal(analysis.extra.dc.language, "fr-FR", name);
        assert.match(analysis.extra.office.application, /^LibreOffice/, name);
      }
      const odt = await extract(doc("rapport.odt"));
      assert.equal(odt.analysis.extra.office.pages, 3, "ODF document statistics");
    });

    it("XLSX and ODS: every sheet in workbook order with its name, cells of a row on one line", async () => {
      for (const [name, type] of [
        ["hoja.xlsx", `${OOXML}.spreadsheetml.sheet`],
        ["hoja.ods", `${ODF}.spreadsheet`],
      ] as const) {
        const { content, analysis } = await extract(doc(name));
        assert.equal(analysis.type, type, name);
        assert.ok(content.includes(`${ES}\t42`), `${name}: ${content.slice(0, 300)}`);
        assert.ok(content.includes("Nombre\tValor"), name);
        const order = ["Resumen", ...Array.from({ length: 10 }, (_, i) => `Hoja ${i + 2}`)];
        const positions = order.map((s) => content.indexOf(`${s}\n`));
        assert.ok(
          positions.every((p, i) => p >= 0 && (i === 0 || p > (positions[i - 1] ?? 0))),
          `${name}: sheets in order: ${positions}`,
        );
        assert.ok(content.indexOf("celda 10\t15") > content.indexOf("celda 9\t13.5"), name);
        assert.equal(analysis.title, "Hoja de cálculo", name);
        assert.equal(analysis.created, "2025-12-01T10:00:00.000Z", name);
        assert.equal(analysis.language, "es", name);
        assert.equal(analysis.extra.dc.creator, "Ana Núñez", name);
        assert.equal(analysis.extra.office.sheets, 11, name);
        assert.deepEqual(analysis.extra.office.sheet_names, order, name);
      }
    });

    it("PPTX and ODP: slides in order (slide 10 after slide 9), title, author, date", async () => {
      for (const [name, type] of [
        ["folien.pptx", `${OOXML}.presentationml.presentation`],
        ["folien.odp", `${ODF}.presentation`],
      ] as const) {
        const { content, analysis } = await extract(doc(name));
        assert.equal(analysis.type, type, name);
        assert.match(content, /^Folie 1\n/, name);
        assert.ok(content.includes(DE), name);
        assert.ok(content.indexOf("Folie 10") > content.indexOf("Folie 9"), `${name}: ${content}`);
        assert.ok(content.indexOf("Folie 11") > content.indexOf("Folie 10"), name);
        assert.equal(analysis.title, "Vortrag über Überwachung", name);
        assert.equal(analysis.created, "2024-05-06T07:08:09.000Z", name);
        assert.equal(analysis.language, "de", name);
        assert.equal(analysis.extra.dc.creator, "Jana Groß", name);
        assert.equal(analysis.extra.office.slides, 11, name);
      }
    });

    it("EPUB: chapters, title, author, language, modification date", async () => {
      const { content, analysis } = await extract(doc("rapport.epub"), "book.bin");
      assert.equal(analysis.type, "application/epub+zip");
      assert.ok(content.includes(FR));
      assert.equal(analysis.title, "Rapport d’enquête");
      assert.equal(analysis.language, "fr");
      assert.equal(analysis.extra.dc.creator, "Équipe CERT");
      assert.equal(analysis.extra.dc.language, "fr-FR");
      // LibreOffice's EPUB export writes no creation date, only dcterms:modified.
      assert.equal(analysis.created, null);
      assert.equal(analysis.extra.dc.modified, "2026-03-14T09:30:00.000Z");
      assert.match(analysis.extra.epub.generator, /LibreOffice/);
    });

    it("PDF/A: text per page, info dictionary and XMP agree with pdfinfo", async () => {
      const pdf = doc("rapport.pdf");
      const oracle = await pdfinfo(pdf);
      const { content, analysis } = await extract(pdf, "report.pdf");
      assert.equal(analysis.type, "application/pdf");
      assert.equal(analysis.extra.pdf.page_count, Number(oracle.Pages));
      assert.equal(analysis.extra.pdf.page_count, 3);
      const pages = content.split("\n\n");
      assert.equal(pages.length, 3, content);
      assert.ok(pages[1]?.replace(/\s+/g, " ").startsWith(`Page deux : ${FR}`), pages[1]);
      assert.match(pages[2] ?? "", /^Page trois/);
      assert.equal(analysis.title, oracle.Title);
      assert.equal(analysis.title, "Rapport d’enquête");
      assert.equal(analysis.created, new Date(oracle.CreationDate ?? "").toISOString());
      assert.equal(analysis.language, "fr");
      assert.equal(analysis.extra.dc.creator, "Équipe CERT");
      assert.equal(analysis.extra.pdf.producer, oracle.Producer);
      assert.equal(analysis.extra.pdf.keywords, "pegasus, forensique");
      assert.equal(analysis.extra.pdf.pdf_format_version, "1.6", "acronyms become one snake_case word");
      assert.equal(analysis.extra.xmp.title, "Rapport d’enquête");
      assert.equal(analysis.extra.xmp.creator, "Équipe CERT");
    });

    it("an encrypted PDF that opens without a password: text and metadata, marked encrypted", async () => {
      const pdf = doc("locked.pdf");
      const oracle = await pdfinfo(pdf);
      assert.match(oracle.Encrypted ?? "", /^yes/, "the fixture really is encrypted");
      const { content, analysis } = await extract(pdf, "locked.pdf");
      assert.equal(analysis.type, "application/pdf");
      assert.ok(content.replace(/\s+/g, " ").includes(EN), content);
      assert.equal(analysis.title, "Locked report");
      assert.equal(analysis.extra.dc.creator, "CERT team");
      assert.equal(analysis.language, "en");
      assert.equal(analysis.extra.pdf.encrypted, true);
    });
  });

  describe("images tagged by exiftool", { skip: skipUnlessCommands("exiftool") }, () => {
    const TAGS = {
      "EXIF:ImageDescription": "Protest on the main square",
      "EXIF:Make": "LoupeCam",
      "EXIF:Model": "LC-1",
      "EXIF:Artist": "Ana Reporter",
      "EXIF:DateTimeOriginal": "2025:07:14 18:30:05",
      "EXIF:GPSLatitude": 48.8584,
      "EXIF:GPSLatitudeRef": "N",
      "EXIF:GPSLongitude": 2.2945,
      "EXIF:GPSLongitudeRef": "E",
      "EXIF:GPSAltitude": 35,
      "EXIF:GPSAltitudeRef": 0,
      "XMP-dc:Title": "Manifestation place de la République",
      "XMP-dc:Creator": "Ana Reporter",
      "XMP-dc:Subject": ["protest", "paris"],
      "IPTC:Headline": "Crowd at dusk",
      "IPTC:City": "Paris",
      "IPTC:Keywords": ["crowd", "night"],
    };
    const base = (format: "jpeg" | "png" | "tiff" | "webp") =>
      sharp({ create: { width: 80, height: 40, channels: 3, background: "#336699" } })
        [format]()
        .toBuffer();

    for (const format of ["jpeg", "png", "tiff", "webp"] as const) {
      it(`${format.toUpperCase()}: EXIF, GPS, XMP and IPTC written by exiftool`, async () => {
        const tagged = await exiftoolTag(await base(format), format, TAGS);
        const { content, analysis } = await extract(tagged, "photo.bin");
        assert.equal(analysis.type, `image/${format}`);
        assert.equal(content, "");
        assert.equal(analysis.extra.image.width, 80);
        assert.equal(analysis.extra.image.height, 40);
        assert.equal(analysis.title, "Manifestation place de la République", "XMP dc:title first");
        assert.equal(analysis.created, "2025-07-14T18:30:05.000Z");
        assert.equal(analysis.extra.exif.make, "LoupeCam");
        assert.equal(analysis.extra.exif.model, "LC-1");
        assert.equal(analysis.extra.exif.artist, "Ana Reporter");
        assert.equal(analysis.extra.exif.image_description, "Protest on the main square");
        assert.equal(analysis.extra.gps.latitude, 48.8584);
        assert.equal(analysis.extra.gps.longitude, 2.2945);
        assert.equal(analysis.extra.gps.altitude, 35);
        assert.equal(analysis.extra.dc.creator, "Ana Reporter");
        assert.deepEqual(analysis.extra.dc.subject, ["protest", "paris"]);
        if (format !== "webp") {
          // exiftool writes IPTC into JPEG, PNG and TIFF only (WebP has no IPTC block).
          assert.equal(analysis.extra.iptc.headline, "Crowd at dusk", format);
          assert.equal(analysis.extra.iptc.city, "Paris", format);
          assert.deepEqual(analysis.extra.iptc.keywords, ["crowd", "night"], format);
        }
        for (const [ns, values] of Object.entries(analysis.extra as Record<string, Record<string, unknown>>))
          for (const [k, v] of Object.entries(values))
            assert.ok(
              !(typeof v === "string" && [...v].some((ch) => ch.charCodeAt(0) < 9)),
              `${format}: ${ns}.${k} holds raw binary: ${JSON.stringify(v)}`,
            );
      });
    }

    it("HEIC (encoded by heif-enc): EXIF, GPS and XMP", {
      skip: skipUnlessCommands("heif-enc"),
    }, async () => {
      const png = await sharp({ create: { width: 80, height: 40, channels: 3, background: "#336699" } })
        .png()
        .toBuffer();
      // HEIF has no IPTC block: EXIF and XMP only.
      const exifXmp = Object.fromEntries(Object.entries(TAGS).filter(([k]) => !k.startsWith("IPTC:")));
      const heic = await exiftoolTag(await heifEncode(png), "heic", exifXmp);
      const { analysis } = await extract(heic, "photo.bin");
      assert.equal(analysis.type, "image/heic");
      assert.equal(analysis.extra.image.width, 80);
      assert.equal(analysis.title, "Manifestation place de la République", "XMP read from sharp's block");
      assert.equal(analysis.created, "2025-07-14T18:30:05.000Z");
      assert.equal(analysis.extra.exif.make, "LoupeCam");
      assert.equal(analysis.extra.gps.latitude, 48.8584);
      assert.equal(analysis.extra.gps.longitude, 2.2945);
      assert.deepEqual(analysis.extra.dc.subject, ["protest", "paris"]);
    });

    it("EXIF dates: the EXIF offset applies, and the server's time zone does not", async () => {
      const jpeg = await exiftoolTag(await base("jpeg"), "jpeg", {
        "EXIF:DateTimeOriginal": "2025:07:14 18:30:05",
        "EXIF:OffsetTimeOriginal": "+02:00",
        "EXIF:ModifyDate": "2025:07:15 01:02:03",
      });
      const { analysis } = await extract(jpeg, "photo.jpg");
      assert.equal(analysis.created, "2025-07-14T16:30:05.000Z");
      assert.equal(analysis.extra.exif.modify_date, "2025-07-15T01:02:03.000Z");
      const tz = process.env.TZ;
      process.env.TZ = "America/New_York"; // exifr builds EXIF dates in the process's zone
      try {
        const direct = await extractImage(jpeg);
        assert.equal(direct.created, "2025-07-14T16:30:05.000Z");
        assert.equal(direct.extra.exif?.modify_date, "2025-07-15T01:02:03.000Z");
      } finally {
        if (tz === undefined) delete process.env.TZ;
        else process.env.TZ = tz;
      }
    });
  });

  describe("audio and video written by ffmpeg", { skip: skipUnlessCommands("ffmpeg") }, () => {
    const tags: MediaTags = {
      title: "Intercepted call",
      artist: "Unknown caller",
      album: "Evidence 2025",
      date: "2025-04-03",
      genre: "Speech",
      comment: "recorded at night",
    };
    const cases = [
      { ext: "mp3", type: "audio/mpeg", codec: /MPEG.*Layer 3/, lossless: false },
      { ext: "flac", type: "audio/flac", codec: /^FLAC$/, lossless: true },
      { ext: "ogg", type: "audio/ogg", codec: /Vorbis/i, lossless: false },
      { ext: "m4a", type: "audio/x-m4a", codec: /AAC/, lossless: false },
      { ext: "wav", type: "audio/wav", codec: /PCM/, lossless: true },
    ];
    for (const c of cases) {
      it(`${c.ext.toUpperCase()}: tags and technical metadata`, async () => {
        const { content, analysis } = await extract(await ffmpegMedia(c.ext, tags), "media.bin");
        assert.equal(analysis.type, c.type);
        assert.equal(content, "");
        assert.equal(analysis.title, "Intercepted call");
        assert.equal(analysis.created, "2025-04-03T00:00:00.000Z");
        assert.equal(analysis.extra.tags.artist, "Unknown caller");
        assert.equal(analysis.extra.tags.album, "Evidence 2025");
        assert.deepEqual(analysis.extra.tags.genre, ["Speech"]);
        assert.equal(analysis.extra.tags.comment, "recorded at night");
        assert.match(analysis.extra.audio.codec, c.codec);
        assert.equal(analysis.extra.audio.sample_rate, 22050);
        assert.equal(analysis.extra.audio.lossless, c.lossless);
        assert.ok(
          Math.abs(analysis.extra.audio.duration_seconds - 2) < 0.1,
          `${analysis.extra.audio.duration_seconds}`,
        );
        if (c.ext !== "m4a") assert.equal(analysis.extra.audio.channels, 1); // see docs: M4A reports the stsd count
      });
    }

    it("MP4: video size and codec, tags without the iTunes atom names repeated", async () => {
      const { analysis } = await extract(await ffmpegMedia("mp4", tags, true), "clip.bin");
      assert.equal(analysis.type, "video/mp4");
      assert.equal(analysis.title, "Intercepted call");
      assert.equal(analysis.created, "2025-04-03T00:00:00.000Z");
      assert.equal(analysis.extra.video.width, 64);
      assert.equal(analysis.extra.video.height, 48);
      assert.match(analysis.extra.audio.codec, /AAC/);
      assert.equal(analysis.extra.tags.artist, "Unknown caller");
      assert.equal(analysis.extra.tags.comment, "recorded at night");
      for (const atom of ["nam", "art", "day", "too", "cmt"])
        assert.equal(analysis.extra.tags[atom], undefined, atom);
    });

    it("MKV: video size and codec, audio facts, and track-level tags", async () => {
      const { analysis } = await extract(await ffmpegMedia("mkv", tags, true), "clip.bin");
      assert.equal(analysis.type, "video/matroska");
      assert.equal(analysis.title, "Intercepted call");
      assert.equal(analysis.created, "2025-04-03T00:00:00.000Z");
      assert.equal(analysis.extra.video.width, 64);
      assert.equal(analysis.extra.video.height, 48);
      assert.equal(analysis.extra.video.frame_rate, 10);
      assert.match(analysis.extra.video.codec, /MPEG4/);
      assert.equal(analysis.extra.audio.sample_rate, 22050);
      assert.equal(analysis.extra.tags.artist, "Unknown caller");
      assert.equal(analysis.extra.tags.album, "Evidence 2025");
      assert.equal(analysis.extra.tags.comment, "recorded at night");
    });
  });

  describe("text in the encodings investigators meet", () => {
    const W1252 = new Map(
      Object.entries({
        "€": 0x80,
        "…": 0x85,
        "‘": 0x91,
        "’": 0x92,
        "“": 0x93,
        "”": 0x94,
        "—": 0x97,
        œ: 0x9c,
      }),
    );
    const windows1252 = (s: string) =>
      Buffer.from(
        [...s].map((c) => {
          const b = W1252.get(c) ?? c.charCodeAt(0);
          assert.ok(b < 256, c);
          return b;
        }),
      );
    const PRICY = "Le rapport coûte 1 250 € — « très cher » selon l’équipe, “vraiment” ; c’est l’œuvre…";
    const cases: Array<{ name: string; bytes: Buffer; text: string; encoding: RegExp; language: string }> = [
      { name: "UTF-8", bytes: Buffer.from(DE), text: DE, encoding: /^UTF-8$/, language: "de" },
      {
        name: "UTF-8 with BOM",
        bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ES)]),
        text: ES,
        encoding: /^UTF-8$/,
        language: "es",
      },
      {
        name: "UTF-16 LE with BOM",
        bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(FR, "utf16le")]),
        text: FR,
        encoding: /^UTF-16LE$/,
        language: "fr",
      },
      {
        name: "UTF-16 BE with BOM",
        bytes: Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(DE, "utf16le").swap16()]),
        text: DE,
        encoding: /^UTF-16BE$/,
        language: "de",
      },
      {
        name: "Latin-1",
        bytes: Buffer.from(`${ES} ¿Señor Muñoz? ¡Sí!`, "latin1"),
        text: `${ES} ¿Señor Muñoz? ¡Sí!`,
        encoding: /^(ISO-8859-1|WINDOWS-1252)$/,
        language: "es",
      },
      {
        name: "Windows-1252 with € and curly quotes",
        bytes: windows1252(`${FR} ${PRICY}`),
        text: `${FR} ${PRICY}`,
        encoding: /^WINDOWS-1252$/,
        language: "fr",
      },
    ];
    for (const c of cases) {
      it(`${c.name}: decoded, encoding named, language found`, async () => {
        const { content, analysis } = await extract(c.bytes, "notes.txt");
        assert.equal(analysis.type, "text/plain");
        assert.equal(content, c.text);
        assert.match(analysis.extra.text.encoding, c.encoding);
        assert.equal(analysis.language, c.language);
        assert.equal(analysis.content_length, c.bytes.length);
      });
    }

    it("CSV in Windows-1252 and JSON in UTF-8", async () => {
      const csv = windows1252('name,city,note\nAna,Málaga,"espía, 5 €"\nJean,Orléans,“enquête”\n');
      const table = await extract(csv, "data.bin");
      assert.equal(table.analysis.type, "text/csv");
      assert.match(table.content, /Málaga,"espía, 5 €"/);
      assert.match(table.content, /Orléans,“enquête”/);
      const doc = { title: "Rapport", findings: [FR, "Deuxième constat."], count: 2 };
      const parsed = await extract(JSON.stringify(doc, null, 2), "data.bin");
      assert.equal(parsed.analysis.type, "application/json");
      assert.deepEqual(JSON.parse(parsed.content), doc);
      assert.equal(parsed.analysis.language, "fr");
    });
  });
});
