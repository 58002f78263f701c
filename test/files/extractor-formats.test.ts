/**
 * The formats beyond the OOXML/ODF family: RTF, legacy DOC/XLS/PPT (written by LibreOffice),
 * Outlook MSG (written from the [MS-OXMSG] layout with the cfb package), Android APKs (binary
 * manifest encoded from the AXML layout) and 7z archives (written by 7zz). Each with known
 * sentences, titles, authors and dates, and a malformed file of each type.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import * as CFB from "cfb";
import { type AxmlElement, buildApk } from "../helpers/apk.ts";
import { extractFile, startFilesServer, type TestFilesServer } from "../helpers/files-server.ts";
import {
  convertWithLibreOffice,
  type DocumentMeta,
  flatPresentation,
  flatSpreadsheet,
} from "../helpers/libreoffice.ts";
import { buildMsg } from "../helpers/msg.ts";
import { fastSaveEdit } from "../helpers/ppt.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";
import { cabinet, compressedStream, isoImage, sevenZipArchive, tarball } from "../helpers/sevenzip.ts";
import { ole10Native } from "../helpers/tree-corpus.ts";
import { storedZip } from "../helpers/zip.ts";

const FR =
  "Les enquêteurs ont trouvé le logiciel espion sur le téléphone du journaliste après une analyse minutieuse.";
const DE =
  "Die Ermittler fanden die Spionagesoftware auf dem Telefon der Journalistin nach einer sorgfältigen Analyse.";
const ES =
  "Los investigadores encontraron el programa espía en el teléfono del periodista después de un análisis cuidadoso.";
const EN = "The investigators found the spyware on the journalist's phone after a careful forensic analysis.";
const GREEK = "Οι ερευνητές βρήκαν το κατασκοπευτικό λογισμικό.";

const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

/** A text document with a header, a footer and a footnote (flatText has none of them). */
function reportFodt(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:meta><dc:title>Rapport d'enquête</dc:title><dc:subject>Logiciel espion</dc:subject><meta:initial-creator>Équipe CERT</meta:initial-creator><dc:creator>Équipe CERT</dc:creator><meta:creation-date>2026-03-14T09:30:00</meta:creation-date><dc:language>fr-FR</dc:language></office:meta>
<office:styles><style:default-style style:family="paragraph"><style:text-properties fo:language="fr" fo:country="FR"/></style:default-style></office:styles>
<office:automatic-styles><style:page-layout style:name="pm1"/></office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"><style:header><text:p>En-tête confidentiel</text:p></style:header><style:footer><text:p>Pied de page TLP:AMBER</text:p></style:footer></style:master-page></office:master-styles>
<office:body><office:text><text:p>${xmlEscape(FR)}<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Note de bas de page sur Zürich.</text:p></text:note-body></text:note></text:p><text:p>${xmlEscape(GREEK)} Symbole ☃. Voir <text:a xlink:type="simple" xlink:href="https://c2.example/login?id=7">le portail</text:a>.</text:p></office:text></office:body></office:document>
`;
}

/** A spreadsheet with date and date-time cells (flatSpreadsheet writes strings and numbers only). */
function datesFods(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:automatic-styles>
<number:date-style style:name="Ndate"><number:year number:style="long"/><number:text>-</number:text><number:month number:style="long"/><number:text>-</number:text><number:day number:style="long"/></number:date-style>
<number:date-style style:name="Nstamp"><number:day/><number:text>.</number:text><number:month/><number:text>.</number:text><number:year number:style="long"/><number:text> </number:text><number:hours number:style="long"/><number:text>:</number:text><number:minutes number:style="long"/></number:date-style>
<style:style style:name="ceDate" style:family="table-cell" style:data-style-name="Ndate"/>
<style:style style:name="ceStamp" style:family="table-cell" style:data-style-name="Nstamp"/>
</office:automatic-styles>
<office:body><office:spreadsheet><table:table table:name="Timeline">
<table:table-row><table:table-cell office:value-type="string"><text:p>first beacon</text:p></table:table-cell><table:table-cell table:style-name="ceDate" office:value-type="date" office:date-value="2026-03-14"><text:p>2026-03-14</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell office:value-type="string"><text:p>exfiltration</text:p></table:table-cell><table:table-cell table:style-name="ceStamp" office:value-type="date" office:date-value="2026-03-15T09:30:00"><text:p>15.03.2026 09:30</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="46095"><text:p>46095</text:p></table:table-cell></table:table-row>
</table:table></office:spreadsheet></office:body></office:document>
`;
}

const deMeta: DocumentMeta = {
  title: "Indikatoren Übersicht",
  creator: "Jana Groß",
  created: "2024-05-06T07:08:09",
  language: "de-DE",
};
const esMeta: DocumentMeta = {
  title: "Presentación técnica",
  creator: "Ana Núñez",
  created: "2025-12-01T10:00:00",
  language: "es-ES",
};

function legacyOffice() {
  return convertWithLibreOffice([
    { source: "report.fodt", content: reportFodt(), to: ["doc", "rtf"] },
    {
      source: "sheet.fods",
      content: flatSpreadsheet(deMeta, {
        Indikatoren: [
          [DE, 42.5],
          ["Größe der Datei", 7],
          ["Hash", "d41d8cd98f00b204e9800998ecf8427e"],
        ],
        Zweites: [["Zweites Blatt mit Text", -3]],
      }),
      to: ["xls"],
    },
    { source: "dates.fods", content: datesFods(), to: ["xls"] },
    {
      source: "slides.fodp",
      content: flatPresentation(esMeta, [
        { title: "Resumen del caso", body: [ES, "Los datos fueron enviados a un servidor desconocido."] },
        { title: "Conclusiones", body: ["El teléfono estaba comprometido."] },
      ]),
      to: ["ppt"],
    },
  ]);
}

/** The DOC with a packaged file, a whole workbook in its ObjectPool and a VBA project added, as Word stores them. */
function docWithEmbedded(doc: Buffer, xls: Buffer, packaged: { label: string; data: Buffer }): Buffer {
  const container = CFB.read(doc, { type: "buffer" });
  CFB.utils.cfb_add(
    container,
    "/ObjectPool/_1234567/\u0001Ole10Native",
    ole10Native(packaged.label, packaged.data),
  );
  const workbook = CFB.read(xls, { type: "buffer" });
  const root = workbook.FullPaths[0] ?? "";
  workbook.FullPaths.forEach((p, i) => {
    const e = workbook.FileIndex[i];
    if (e?.type === 2 && e.content && !p.endsWith("Sh33tJ5"))
      CFB.utils.cfb_add(container, `/ObjectPool/_7654321/${p.slice(root.length)}`, e.content);
  });
  CFB.utils.cfb_add(container, "/Macros/VBA/dir", Buffer.from([1, 0, 0]));
  CFB.utils.cfb_add(container, "/Macros/VBA/ThisDocument", Buffer.from("Sub AutoOpen()\r\nEnd Sub"));
  return Buffer.from(CFB.write(container, { type: "buffer" }) as Uint8Array);
}

/** An OLE container holding one named stream of junk: the right type, an unreadable body. */
function oleWith(stream: string, junk: Buffer): Buffer {
  const cfb = CFB.utils.cfb_new();
  CFB.utils.cfb_add(cfb, `/${stream}`, junk);
  return Buffer.from(CFB.write(cfb, { type: "buffer" }) as Uint8Array);
}

describe("POST /analyzer/extractor: RTF, legacy Office, MSG, APK, 7z", () => {
  let server: TestFilesServer;
  before(async () => {
    server = await startFilesServer({
      EXTRACT_MAX_ARCHIVE_BYTES: "2000000",
      EXTRACT_MAX_ARCHIVE_ENTRIES: "40",
      EXTRACT_MAX_DEPTH: "2",
    });
  });
  after(() => server.close());

  const extract = (bytes: Uint8Array | string, name?: string) => extractFile(server, bytes, name);

  async function assertParseError(bytes: Uint8Array | string, name: string) {
    const { body, entry } = await extract(bytes, name);
    assert.equal(body.success, false, `${name}: ${JSON.stringify(entry)}`);
    assert.equal(entry.success, false);
    assert.equal(entry.error_short, "parse_error", `${name}: ${JSON.stringify(entry)}`);
    assert.ok(entry.error.length > 0);
  }

  describe("LibreOffice documents", { skip: skipUnlessCommands("soffice") }, () => {
    it("reads RTF: body, footnote, \\u and \\'hh characters, title, author and creation date", async () => {
      const files = await legacyOffice();
      const rtf = files["report.rtf"] as Buffer;
      assert.ok(rtf.subarray(0, 5).toString() === "{\\rtf");
      const { body, analysis } = await extract(rtf, "report.bin");
      assert.equal(analysis.type, "application/rtf");
      assert.match(body.content, /Les enquêteurs ont trouvé le logiciel espion/);
      assert.ok(body.content.includes(GREEK), body.content);
      assert.match(body.content, /Symbole ☃/);
      assert.match(body.content, /Note de bas de page sur Zürich/);
      assert.match(body.content, /En-tête confidentiel/);
      assert.doesNotMatch(body.content, /Times New Roman|Footnote Characters|\\rtf|\\par/);
      assert.equal(analysis.title, "Rapport d'enquête");
      assert.equal(analysis.created, "2026-03-14T09:30:00.000Z");
      assert.equal(analysis.language, "fr");
      assert.equal(analysis.extra.dc.creator, "Équipe CERT");
      assert.equal(analysis.extra.dc.subject, "Logiciel espion");
      assert.match(body.content, /Voir le portail\./);
      assert.deepEqual(analysis.extra.rtf.links, ["https://c2.example/login?id=7"]);
    });

    it("reads DOC: body, headers, footers, footnotes and the summary information", async () => {
      const doc = (await legacyOffice())["report.doc"] as Buffer;
      const { body, analysis } = await extract(doc, "report.bin");
      assert.equal(analysis.type, "application/msword");
      assert.match(body.content, /Les enquêteurs ont trouvé le logiciel espion/);
      assert.ok(body.content.includes(GREEK), body.content);
      assert.match(body.content, /En-tête confidentiel/);
      assert.match(body.content, /Pied de page TLP:AMBER/);
      assert.match(body.content, /Note de bas de page sur Zürich/);
      assert.equal(analysis.title, "Rapport d'enquête");
      assert.equal(analysis.created, "2026-03-14T09:30:00.000Z");
      assert.equal(analysis.language, "fr");
      assert.equal(analysis.extra.dc.creator, "Équipe CERT");
      assert.equal(analysis.extra.dc.subject, "Logiciel espion");
      assert.equal(analysis.extra.dc.last_modified_by, "Équipe CERT");
    });

    it("lists a DOC's embedded objects — a packaged file, a workbook — reads their text, flags macros", async () => {
      const files = await legacyOffice();
      const doc = docWithEmbedded(files["report.doc"] as Buffer, files["sheet.xls"] as Buffer, {
        label: "facture.txt",
        data: Buffer.from(EN),
      });
      const { body, analysis } = await extract(doc, "with-objects.doc");
      assert.equal(analysis.type, "application/msword");
      assert.match(body.content, /Les enquêteurs ont trouvé/);
      assert.equal(analysis.extra.ole.macros, true);
      const embedded = analysis.extra.ole.embedded as Array<{ name: string; type?: string; size: number }>;
      assert.deepEqual(
        embedded.map((e) => [e.name, e.type]),
        [
          ["facture.txt", "text/plain"],
          ["ObjectPool/_7654321", "application/vnd.ms-excel"],
        ],
      );
      assert.match(body.content, /── facture\.txt ──\nThe investigators found the spyware/);
      assert.match(body.content, /── ObjectPool\/_7654321 ──\nIndikatoren\nDie Ermittler/);
    });

    it("reads XLS: shared strings, numbers on every sheet, sheet names, metadata", async () => {
      const xls = (await legacyOffice())["sheet.xls"] as Buffer;
      const { body, analysis } = await extract(xls, "sheet.bin");
      assert.equal(analysis.type, "application/vnd.ms-excel");
      assert.ok(body.content.includes(DE), body.content);
      assert.match(body.content, /42\.5/);
      assert.match(body.content, /Größe der Datei\s7/);
      assert.match(body.content, /d41d8cd98f00b204e9800998ecf8427e/);
      assert.match(body.content, /^Indikatoren\nDie Ermittler/);
      assert.match(body.content, /\n\nZweites\nZweites Blatt mit Text\t-3$/);
      assert.deepEqual(analysis.extra.office.sheet_names, ["Indikatoren", "Zweites"]);
      assert.equal(analysis.title, deMeta.title);
      assert.equal(analysis.created, "2024-05-06T07:08:09.000Z");
      assert.equal(analysis.extra.dc.creator, "Jana Groß");
      assert.equal(analysis.language, "de");
    });

    it("reads XLS dates as ISO 8601 from the cells' number formats, plain numbers as numbers", async () => {
      const xls = (await legacyOffice())["dates.xls"] as Buffer;
      const { body, analysis } = await extract(xls, "dates.bin");
      assert.equal(analysis.type, "application/vnd.ms-excel");
      assert.match(body.content, /first beacon\t2026-03-14\n/);
      assert.match(body.content, /exfiltration\t2026-03-15 09:30:00\t46095/);
    });

    it("reads PPT: the text of every slide in order, without master prompts, and metadata", async () => {
      const ppt = (await legacyOffice())["slides.ppt"] as Buffer;
      const { body, analysis } = await extract(ppt, "slides.bin");
      assert.equal(analysis.type, "application/vnd.ms-powerpoint");
      assert.ok(body.content.includes(ES), body.content);
      assert.ok(
        body.content.indexOf("Resumen del caso") < body.content.indexOf("Conclusiones"),
        body.content,
      );
      assert.match(body.content, /Conclusiones\nEl teléfono estaba comprometido/);
      assert.doesNotMatch(body.content, /Click to edit|^\*$/m);
      assert.equal(analysis.extra.office.slides, 2);
      assert.equal(analysis.title, esMeta.title);
      assert.equal(analysis.created, "2025-12-01T10:00:00.000Z");
      assert.equal(analysis.extra.dc.creator, "Ana Núñez");
      assert.equal(analysis.language, "es");
    });

    it("reads the current version of a fast-saved PPT, not the superseded slide still in the file", async () => {
      const ppt = (await legacyOffice())["slides.ppt"] as Buffer;
      const edited = fastSaveEdit(ppt, "Conclusiones", "Revisado hoy");
      assert.ok(
        edited.includes(Buffer.from("Conclusiones", "utf16le")),
        "the old slide is still in the file",
      );
      const { body, analysis } = await extract(edited, "edited.ppt");
      assert.equal(analysis.type, "application/vnd.ms-powerpoint");
      assert.match(body.content, /Revisado hoy\nEl teléfono estaba comprometido/);
      assert.doesNotMatch(body.content, /Conclusiones/);
      assert.equal(analysis.extra.office.slides, 2);
    });

    it("reads an Outlook MSG: headers, body, attachments and the text of an attached DOC", async () => {
      const doc = (await legacyOffice())["report.doc"] as Buffer;
      const msg = buildMsg({
        subject: "Überweisung überfällig",
        senderName: "Alice Martin",
        senderEmail: "alice@example.org",
        recipients: [
          { name: "Bob", email: "bob@example.org", kind: "to" },
          { name: "Chloé", email: "chloe@example.org", kind: "cc" },
        ],
        body: `${DE}\r\nMit freundlichen Grüßen`,
        sent: new Date("2026-11-10T09:15:00Z"),
        attachments: [
          { fileName: "rapport.doc", mimeType: "application/msword", content: doc },
          { fileName: "notes.txt", mimeType: "text/plain", content: Buffer.from(EN) },
        ],
      });
      const { body, analysis } = await extract(msg, "mail.bin");
      assert.equal(analysis.type, "application/vnd.ms-outlook");
      assert.equal(analysis.title, "Überweisung überfällig");
      assert.equal(analysis.created, "2026-11-10T09:15:00.000Z");
      assert.equal(analysis.language, "de");
      assert.equal(analysis.extra.mail.from, '"Alice Martin" <alice@example.org>');
      assert.equal(analysis.extra.mail.to, '"Bob" <bob@example.org>');
      assert.equal(analysis.extra.mail.cc, '"Chloé" <chloe@example.org>');
      assert.equal(analysis.extra.mail.attachment_count, 2);
      assert.deepEqual(
        analysis.extra.mail.attachments.map((a: { filename: string; type: string }) => [a.filename, a.type]),
        [
          ["rapport.doc", "application/msword"],
          ["notes.txt", "text/plain"],
        ],
      );
      assert.ok(body.content.startsWith(DE), body.content);
      assert.match(body.content, /Les enquêteurs ont trouvé/, "the attached DOC's text is extracted");
      assert.match(body.content, /spyware on the journalist/);
    });
  });

  it("reads RTF bytes in the \\ansicpg and \\fcharset code pages, skipping pictures and binary data", async () => {
    // Written by hand from the RTF 1.9.1 specification: 8-bit text as \'hh escapes only (older
    // producers write no \uN), a Greek font (\fcharset161) inside a Cyrillic document (\ansicpg1251).
    const RU = "Следователи нашли шпионскую программу на телефоне журналиста после тщательного анализа.";
    const EL = "Κατασκοπευτικό λογισμικό";
    const hex = (text: string, codepage: string) => {
      const decoder = new TextDecoder(codepage);
      const table = new Map<string, number>();
      for (let b = 0; b < 256; b++) table.set(decoder.decode(Uint8Array.of(b)), b);
      return [...text]
        .map((ch) =>
          ch.charCodeAt(0) < 0x80 ? ch : `\\'${(table.get(ch) as number).toString(16).padStart(2, "0")}`,
        )
        .join("");
    };
    const rtf = [
      "{\\rtf1\\ansi\\ansicpg1251\\deff0",
      "{\\fonttbl{\\f0\\fnil\\fcharset204 Arial Cyr;}{\\f1\\fnil\\fcharset161 Arial Greek;}}",
      "{\\colortbl;\\red255\\green0\\blue0;}",
      `{\\info{\\title ${hex("Отчёт", "windows-1251")}}{\\author Analyst}{\\creatim\\yr2025\\mo2\\dy3\\hr4\\min5}}`,
      `\\f0 ${hex(RU, "windows-1251")}\\par`,
      `{\\f1 ${hex(EL, "windows-1253")}}\\par`,
      "{\\pict\\pngblip 89504e470d0a1a0a}",
      "{\\*\\objdata \\bin4 \\}{}}",
      "{\\*\\generator Hand 1.0;}",
      '{\\field{\\*\\fldinst INCLUDEPICTURE \\\\d "http://203.0.113.9/t.png" \\\\* MERGEFORMAT}{\\fldrslt }}',
      '{\\field{\\*\\fldinst HYPERLINK \\\\l "bookmark1"}{\\fldrslt inside}}',
      "{\\object\\objemb{\\*\\objclass Equation.3}{\\*\\objdata 01050000}{\\result {\\pict 89}}}",
      "\\uc1 Unicode: \\u-1279?le, \\u8364\\'88 and a tab\\tab end.\\par",
      "}",
    ].join("\n");
    const { body, analysis } = await extract(Buffer.from(rtf, "latin1"), "old.doc");
    assert.equal(analysis.type, "application/rtf");
    assert.ok(body.content.includes(RU), body.content);
    assert.ok(body.content.includes(EL), body.content);
    assert.match(body.content, /Unicode: ﬁle, € and a tab\tend\./);
    assert.doesNotMatch(body.content, /Arial|89504e47|Hand 1\.0|\\/);
    assert.equal(analysis.title, "Отчёт");
    assert.equal(analysis.created, "2025-02-03T04:05:00.000Z");
    assert.equal(analysis.language, "ru");
    assert.equal(analysis.extra.rtf.codepage, 1251);
    assert.deepEqual(analysis.extra.rtf.links, ["http://203.0.113.9/t.png"]);
    assert.deepEqual(analysis.extra.rtf.object_classes, ["Equation.3"]);
    assert.match(body.content, /inside/);
  });

  it("reads an MSG with only an HTML body", async () => {
    const msg = buildMsg({
      subject: "Factura pendiente",
      senderName: "Ana",
      senderEmail: "ana@example.org",
      recipients: [{ name: "Luis", email: "luis@example.org", kind: "to" }],
      html: `<html><head><style>p{color:red}</style></head><body><p>${ES}</p></body></html>`,
      sent: new Date("2025-01-02T03:04:05Z"),
      attachments: [],
    });
    const { body, analysis } = await extract(msg, "x.msg");
    assert.equal(analysis.type, "application/vnd.ms-outlook");
    assert.equal(body.content, ES);
    assert.equal(analysis.language, "es");
    assert.equal(analysis.extra.mail.attachment_count, 0);
  });

  it("reads a forwarded message attached to an MSG: its headers, body and its own attachments", async () => {
    const phish = {
      subject: "Votre facture impayée",
      senderName: "Service Clients",
      senderEmail: "billing@paypa1.example",
      recipients: [{ name: "Luc", email: "luc@example.org", kind: "to" as const }],
      body: FR,
      sent: new Date("2026-05-01T08:00:00Z"),
      attachments: [{ fileName: "facture.txt", mimeType: "text/plain", content: Buffer.from(DE) }],
    };
    const report = buildMsg({
      subject: "Fwd: suspicious invoice",
      senderName: "Luc",
      senderEmail: "luc@example.org",
      recipients: [{ name: "CERT", email: "cert@example.org", kind: "to" }],
      body: EN,
      sent: new Date("2026-05-01T09:00:00Z"),
      attachments: [{ fileName: "Votre facture impayée.msg", message: phish }],
    });
    const { body, analysis } = await extract(report, "report.msg");
    assert.equal(analysis.type, "application/vnd.ms-outlook");
    assert.equal(analysis.title, "Fwd: suspicious invoice");
    const [attached] = analysis.extra.mail.attachments;
    assert.equal(attached.type, "application/vnd.ms-outlook");
    assert.equal(attached.date, "2026-05-01T08:00:00.000Z");
    assert.equal(attached.mail.subject, "Votre facture impayée");
    assert.equal(attached.mail.from, '"Service Clients" <billing@paypa1.example>');
    assert.equal(attached.mail.attachments[0].filename, "facture.txt");
    assert.equal(attached.mail.attachments[0].type, "text/plain");
    assert.ok(body.content.startsWith(EN), body.content);
    assert.match(body.content, /Votre facture impayée\n"Service Clients" <billing@paypa1\.example>/);
    assert.match(body.content, /Les enquêteurs ont trouvé/);
    assert.match(body.content, /── attachment facture\.txt ──\nDie Ermittler/);
  });

  it("reads an MSG whose body is only compressed RTF encapsulating HTML", async () => {
    const escaped = [...FR]
      .map((ch) => (ch.charCodeAt(0) < 0x80 ? ch : `\\'${ch.charCodeAt(0).toString(16)}`))
      .join("");
    // [MS-OXRTFEX]: the HTML's tags in \*\htmltag groups, its text outside \htmlrtf runs.
    const rtf = [
      "{\\rtf1\\ansi\\ansicpg1252\\fromhtml1 \\deff0{\\fonttbl{\\f0\\fswiss Arial;}}",
      "{\\*\\htmltag19 <html>}{\\*\\htmltag34 <head>}{\\*\\htmltag41 <style>p{color:red}</style>}",
      "{\\*\\htmltag42 </head>}{\\*\\htmltag50 <body>}{\\*\\htmltag64 <p>}",
      `\\htmlrtf {\\htmlrtf0 ${escaped} \\u8364?`,
      "{\\*\\htmltag72 </p>}\\htmlrtf }\\htmlrtf0 {\\*\\htmltag58 </body>}{\\*\\htmltag27 </html>}}",
    ].join("\r\n");
    const msg = buildMsg({
      subject: "Rapport",
      senderName: "Chloé",
      senderEmail: "chloe@example.org",
      recipients: [{ name: "Luc", email: "luc@example.org", kind: "to" }],
      rtf,
      sent: new Date("2026-02-03T04:05:06Z"),
      attachments: [],
    });
    const { body, analysis } = await extract(msg, "x.msg");
    assert.equal(analysis.type, "application/vnd.ms-outlook");
    assert.equal(body.content, `${FR} €`);
    assert.equal(analysis.language, "fr");
  });

  it("reads an APK's manifest: package, versions, SDK levels, permissions, components", async () => {
    const manifest: AxmlElement = {
      name: "manifest",
      attributes: {
        "android:versionCode": 4021,
        "android:versionName": "4.2.1-ß",
        package: "org.example.tracker",
      },
      children: [
        { name: "uses-sdk", attributes: { "android:minSdkVersion": 23, "android:targetSdkVersion": 34 } },
        { name: "uses-permission", attributes: { "android:name": "android.permission.READ_SMS" } },
        { name: "uses-permission", attributes: { "android:name": "android.permission.RECORD_AUDIO" } },
        {
          name: "uses-permission",
          attributes: { "android:name": "android.permission.ACCESS_FINE_LOCATION" },
        },
        {
          name: "application",
          attributes: { "android:label": "Tracker" },
          children: [
            { name: "activity", attributes: { "android:name": ".MainActivity", "android:exported": true } },
            { name: "service", attributes: { "android:name": ".UploadService" } },
            { name: "receiver", attributes: { "android:name": ".BootReceiver", "android:exported": false } },
            { name: "provider", attributes: { "android:name": ".Files" } },
          ],
        },
      ],
    };
    // UTF-8 string pool with attribute names, and UTF-16 with names stripped (resource map only).
    for (const opts of [{ utf8: true }, { utf8: false, stripNames: true }]) {
      const { body, analysis } = await extract(buildApk(manifest, opts), "app.zip");
      assert.equal(analysis.type, "application/vnd.android.package-archive", JSON.stringify(opts));
      assert.deepEqual(analysis.extra.apk, {
        package: "org.example.tracker",
        version_code: 4021,
        version_name: "4.2.1-ß",
        min_sdk: 23,
        target_sdk: 34,
        permissions: [
          "android.permission.READ_SMS",
          "android.permission.RECORD_AUDIO",
          "android.permission.ACCESS_FINE_LOCATION",
        ],
        activities: [".MainActivity"],
        services: [".UploadService"],
        receivers: [".BootReceiver"],
        providers: [".Files"],
      });
      assert.equal(analysis.extra.archive.entry_count, 5);
      assert.equal(analysis.extra.archive.truncated, undefined);
      assert.match(body.content, /permission android\.permission\.READ_SMS/);
    }
  });

  describe("7z archives", { skip: skipUnlessCommands("7zz") }, () => {
    it("lists a 7z archive and extracts its documents recursively (a zip and a DOC inside)", async () => {
      const inner = storedZip({ "deep.txt": EN });
      const brokenXls = oleWith("Workbook", Buffer.alloc(0)); // listed with its error, not fatal
      const archive = await sevenZipArchive({
        "lisez-moi.txt": FR,
        "dossier/notizen.txt": DE,
        "dossier/inner.zip": inner,
        "broken.xls": brokenXls,
      });
      const { body, analysis } = await extract(archive, "bundle.bin");
      assert.equal(analysis.type, "application/x-7z-compressed");
      const entries = analysis.extra.archive.entries as Array<{ name: string; size: number; type?: string }>;
      const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
      assert.equal(byName["lisez-moi.txt"]?.size, Buffer.byteLength(FR));
      assert.equal(byName["lisez-moi.txt"]?.type, "text/plain");
      assert.equal(byName["dossier/inner.zip"]?.type, "application/zip");
      assert.ok(byName["dossier/"], JSON.stringify(entries));
      assert.match(String((byName["broken.xls"] as { error?: string })?.error), /BOF/);
      assert.match(body.content, /── lisez-moi\.txt ──\nLes enquêteurs/);
      assert.match(body.content, /Spionagesoftware/);
      assert.match(body.content, /spyware on the journalist/, "the zip inside the 7z is read too");
      assert.equal(analysis.extra.archive.truncated, undefined);
    });

    it("ends a 7z bomb with a partial result, from the sizes in the listing", async () => {
      // 8 MB of zeros packs into a few hundred bytes; the server's budget is 2 MB.
      const bomb = await sevenZipArchive({ "a-first.txt": ES, "zeros.bin": Buffer.alloc(8_000_000) });
      assert.ok(bomb.length < 10_000, `bomb is ${bomb.length} bytes`);
      const { body, analysis } = await extract(bomb, "bomb.7z");
      assert.equal(body.success, true);
      assert.match(analysis.extra.archive.truncated, /more than 2000000 uncompressed bytes/);
      const zeros = analysis.extra.archive.entries.find((e: { name: string }) => e.name === "zeros.bin");
      assert.equal(zeros.size, 8_000_000);
      assert.equal(zeros.type, undefined, "the oversized entry is listed, not unpacked");
      assert.match(body.content, /programa espía/);

      const many: Record<string, string> = {};
      for (let i = 0; i < 100; i++) many[`f${String(i).padStart(3, "0")}.txt`] = `file ${i}`;
      const crowd = await extract(await sevenZipArchive(many), "crowd.7z");
      assert.equal(crowd.body.success, true);
      assert.match(crowd.analysis.extra.archive.truncated, /more than 40 entries/);
      assert.equal(crowd.analysis.extra.archive.entries.length, 40);
    });

    it("reads XZ and BZIP2 streams (a tar.xz, a text.bz2) and stops an XZ bomb at the byte budget", async () => {
      const tarXz = await compressedStream(
        await tarball({ "notes/notiz.txt": DE, "lisez-moi.txt": FR }),
        "xz",
      );
      const xz = await extract(tarXz, "evidence.tar.xz");
      assert.equal(xz.analysis.type, "application/x-xz");
      assert.equal(xz.analysis.extra.archive.entries[0].name, "evidence.tar");
      assert.equal(xz.analysis.extra.archive.entries[0].type, "application/x-tar");
      assert.match(xz.body.content, /── notes\/notiz\.txt ──\nDie Ermittler/);
      assert.match(xz.body.content, /logiciel espion/);

      const bz2 = await extract(await compressedStream(ES, "bzip2"), "note.txt.bz2");
      assert.equal(bz2.analysis.type, "application/x-bzip2");
      assert.equal(bz2.body.content, ES);
      assert.equal(bz2.analysis.language, "es");

      const bomb = await compressedStream(Buffer.alloc(8_000_000), "xz");
      assert.ok(bomb.length < 10_000, `bomb is ${bomb.length} bytes`);
      const stopped = await extract(bomb, "zeros.xz");
      assert.equal(stopped.body.success, true);
      assert.match(stopped.analysis.extra.archive.truncated, /more than 2000000 uncompressed bytes/);
    });

    it("lists encrypted entries no password opens, and refuses encrypted headers without hanging", async () => {
      // Not among ARCHIVE_PASSWORDS: archive-passwords.test.ts covers the passwords that open.
      const unknown = "not-a-default-7f3a";
      const locked = await sevenZipArchive({ "secret.txt": EN }, { password: unknown });
      const { body, analysis } = await extract(locked, "locked.7z");
      assert.equal(body.success, true);
      assert.deepEqual(analysis.extra.archive.entries, [
        { name: "secret.txt", size: Buffer.byteLength(EN), encrypted: true, opened: false },
      ]);
      assert.doesNotMatch(body.content, /spyware/);
      const hidden = await sevenZipArchive({ "secret.txt": EN }, { password: unknown, encryptHeaders: true });
      await assertParseError(hidden, "hidden.7z");
    });
  });

  describe("disc images and cabinets", { skip: skipUnlessCommands("xorriso", "gcab") }, () => {
    it("reads an ISO 9660 image and a CAB cabinet like archives, recursively", async () => {
      const files = {
        "docs/notiz.txt": DE,
        "lisez-moi.txt": FR,
        "inner.zip": storedZip({ "deep.txt": EN }),
      };
      for (const [kind, bytes, type] of [
        ["iso", await isoImage(files, "EVIDENCE"), "application/x-iso9660-image"],
        ["cab", await cabinet(files), "application/vnd.ms-cab-compressed"],
      ] as const) {
        const { body, analysis } = await extract(bytes, `image.${kind}.bin`);
        assert.equal(analysis.type, type);
        const names = analysis.extra.archive.entries.map((e: { name: string }) => e.name);
        for (const n of ["docs/notiz.txt", "lisez-moi.txt", "inner.zip"])
          assert.ok(names.includes(n), `${kind}: ${names}`);
        assert.match(body.content, /Spionagesoftware/, kind);
        assert.match(body.content, /logiciel espion/, kind);
        assert.match(body.content, /spyware on the journalist/, `${kind}: the zip inside is read`);
      }
    });
  });

  it("names the streams of an OLE file of another kind and keeps its printable strings", async () => {
    const cfb = CFB.utils.cfb_new();
    CFB.utils.cfb_add(cfb, "/VisioDocument", Buffer.from("\u0000\u0001http://c2.example/stage2\u0000"));
    CFB.utils.cfb_add(cfb, "/Macros/VBA/dir", Buffer.from([1, 2, 3]));
    const { body, analysis } = await extract(
      Buffer.from(CFB.write(cfb, { type: "buffer" }) as Uint8Array),
      "x",
    );
    assert.equal(analysis.type, "application/x-cfb");
    assert.ok(analysis.extra.ole.streams.includes("VisioDocument"), JSON.stringify(analysis.extra.ole));
    assert.ok(analysis.extra.ole.streams.includes("Macros"));
    assert.match(body.content, /http:\/\/c2\.example\/stage2/);
  });

  it("answers 200 with parse_error for malformed RTF, DOC, XLS, PPT, MSG and APK files", async () => {
    const junk = Buffer.from("this is not what the container says it is".repeat(20));
    await assertParseError("{\\rtf1{{{{", "broken.rtf");
    await assertParseError(oleWith("WordDocument", junk), "broken.doc");
    await assertParseError(oleWith("Workbook", junk), "broken.xls");
    await assertParseError(oleWith("PowerPoint Document", junk), "broken.ppt");
    const msg = buildMsg({
      subject: "s",
      senderName: "a",
      senderEmail: "a@example.org",
      recipients: [],
      body: "b",
      sent: new Date(),
      attachments: [],
    });
    await assertParseError(msg.subarray(0, 1536), "truncated.msg");
    // A directory entry claiming a 200 MB stream in a small file: refused before any reader trusts it.
    const liar = Buffer.from(msg);
    const entry = liar.indexOf(Buffer.from("__substg1.0_1000001F", "utf16le"));
    assert.ok(entry > 0);
    liar.writeUInt32LE(200_000_000, entry + 120); // the stream size field of the 128-byte entry
    await assertParseError(liar, "liar.msg");
    await assertParseError(
      storedZip({ "AndroidManifest.xml": junk, "classes.dex": Buffer.from("dex\n035\0") }),
      "broken.apk",
    );
    const archive = Buffer.concat([Buffer.from("377abcaf271c0004", "hex"), junk]);
    await assertParseError(archive, "broken.7z");
    await assertParseError(Buffer.concat([Buffer.from("fd377a585a00", "hex"), junk]), "broken.xz");
  });
});
