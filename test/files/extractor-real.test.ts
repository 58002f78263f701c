/**
 * The extractor on files made by real producers: LibreOffice (office documents, EPUB, PDF),
 * exiftool (image metadata), ffmpeg (tagged audio and video), and text in the encodings
 * investigators meet. Each document carries known sentences, a title, an author and a date.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import { json } from "../helpers/json.ts";
import {
  convertWithLibreOffice,
  type DocumentMeta,
  flatPresentation,
  flatSpreadsheet,
  flatText,
} from "../helpers/libreoffice.ts";
import { pdfinfo } from "../helpers/producers.ts";
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

  async function extract(bytes: Uint8Array | string, name = "upload.bin") {
    const res = await postFile(`${server.url}/analyzer/extractor`, bytes, name);
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.success, true, JSON.stringify(body.processors.extractor));
    return { content: body.content as string, analysis: body.processors.extractor.analysis };
  }

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
});
