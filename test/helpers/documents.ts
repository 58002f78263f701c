/** Documents built by hand from their published formats, with known text, titles, authors and dates. */
import { storedZip } from "./zip.ts";

/** A one-page PDF 1.4 with an info dictionary; offsets in the xref table are computed. */
export function simplePdf(text: string, info: { title: string; author: string; created: string }): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, "\\$&")}) Tj ET`;
  return pdfFromObjects(
    [
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
      `<< /Title (${info.title}) /Author (${info.author}) /Producer (Loupe tests) /CreationDate (${info.created}) >>`,
    ],
    "/Root 1 0 R /Info 6 0 R",
  );
}

/** A PDF of the given objects (numbered from 1, binary parts allowed) with a computed xref table. */
export function pdfFromObjects(objects: Array<string | Buffer>, trailer: string): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n", "latin1")];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(length);
    const object = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, "latin1"),
      typeof o === "string" ? Buffer.from(o, "latin1") : o,
      Buffer.from("\nendobj\n", "latin1"),
    ]);
    parts.push(object);
    length += object.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) tail += `${String(off).padStart(10, "0")} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(tail, "latin1")]);
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

export function simpleDocx(
  paragraphs: string[],
  core: { title: string; creator: string; created: string },
): Buffer {
  return docxOf(
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs.map((p) => `<w:p><w:r><w:t>${esc(p)}</w:t></w:r></w:p>`).join("")}</w:body></w:document>`,
    `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>${esc(core.title)}</dc:title><dc:creator>${esc(core.creator)}</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">${core.created}</dcterms:created></cp:coreProperties>`,
  );
}

/** A DOCX package around the given `word/document.xml` (and optional core properties). */
export function docxOf(documentXml: string, coreXml?: string): Buffer {
  return storedZip({
    "[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`,
    "_rels/.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    "word/document.xml": documentXml,
    ...(coreXml ? { "docProps/core.xml": coreXml } : {}),
  });
}

export function simpleOdt(
  paragraphs: string[],
  meta: { title: string; creator: string; created: string },
): Buffer {
  return storedZip({
    mimetype: "application/vnd.oasis.opendocument.text",
    "META-INF/manifest.xml": `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    "content.xml": `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>${paragraphs.map((p) => `<text:p>${esc(p)}</text:p>`).join("")}</office:text></office:body></office:document-content>`,
    "meta.xml": `<?xml version="1.0" encoding="UTF-8"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>${esc(meta.title)}</dc:title><dc:creator>${esc(meta.creator)}</dc:creator><meta:creation-date>${meta.created}</meta:creation-date></office:meta></office:document-meta>`,
  });
}

/** A 16-bit PCM WAV with a LIST/INFO chunk naming its title and artist. */
export function taggedWav(seconds: number, tags: { title: string; artist: string }): Buffer {
  const sampleRate = 8000;
  const pcm = Buffer.alloc(sampleRate * 2 * seconds);
  for (let i = 0; i < pcm.length / 2; i++) pcm.writeInt16LE(Math.round(Math.sin(i / 10) * 8000), i * 2);
  const infoField = (id: string, text: string) => {
    const data = Buffer.from(`${text}\0`, "latin1");
    const padded = data.length % 2 ? Buffer.concat([data, Buffer.alloc(1)]) : data;
    const head = Buffer.alloc(8);
    head.write(id, 0, "ascii");
    head.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, padded]);
  };
  const info = Buffer.concat([
    Buffer.from("INFO"),
    infoField("INAM", tags.title),
    infoField("IART", tags.artist),
  ]);
  const chunk = (id: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.write(id, 0, "ascii");
    head.writeUInt32LE(body.length, 4);
    return Buffer.concat([head, body]);
  };
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0); // PCM
  fmt.writeUInt16LE(1, 2); // mono
  fmt.writeUInt32LE(sampleRate, 4);
  fmt.writeUInt32LE(sampleRate * 2, 8);
  fmt.writeUInt16LE(2, 12);
  fmt.writeUInt16LE(16, 14);
  const body = Buffer.concat([
    Buffer.from("WAVE"),
    chunk("fmt ", fmt),
    chunk("LIST", info),
    chunk("data", pcm),
  ]);
  return chunk("RIFF", body);
}

/** A MIME multipart email with a text body and one base64 attachment, then `more` (an attachment without a name has none in its headers). */
export function multipartEmail(opts: {
  subject: string;
  body: string;
  attachmentName: string;
  attachment: Buffer;
  more?: Array<{ name?: string; bytes: Buffer }>;
}): string {
  const b = "loupe-boundary-42";
  const part = ({ name, bytes }: { name?: string; bytes: Buffer }) => [
    `--${b}`,
    name
      ? `Content-Type: application/octet-stream; name="${name}"`
      : "Content-Type: application/octet-stream",
    name ? `Content-Disposition: attachment; filename="${name}"` : "Content-Disposition: attachment",
    "Content-Transfer-Encoding: base64",
    "",
    bytes.toString("base64").replace(/.{76}/g, "$&\r\n"),
  ];
  const attachments = [{ name: opts.attachmentName, bytes: opts.attachment }, ...(opts.more ?? [])];
  return [
    "From: Alice <alice@example.org>",
    "To: Bob <bob@example.org>",
    `Subject: ${opts.subject}`,
    "Date: Tue, 10 Nov 2026 09:15:00 +0000",
    "Message-ID: <m42@example.org>",
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${b}"`,
    "",
    `--${b}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    opts.body,
    ...attachments.flatMap(part),
    `--${b}--`,
    "",
  ].join("\r\n");
}

export function simpleEpub(
  chapters: string[],
  meta: { title: string; creator: string; date: string },
): Buffer {
  const items = chapters
    .map((_, i) => `<item id="c${i}" href="text/chapter${i}.xhtml" media-type="application/xhtml+xml"/>`)
    .join("");
  const spine = chapters.map((_, i) => `<itemref idref="c${i}"/>`).join("");
  const files: Record<string, string> = {
    mimetype: "application/epub+zip",
    "META-INF/container.xml": `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
    "OEBPS/content.opf": `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${esc(meta.title)}</dc:title><dc:creator>${esc(meta.creator)}</dc:creator><dc:date>${meta.date}</dc:date><dc:language>en</dc:language></metadata><manifest>${items}</manifest><spine>${spine}</spine></package>`,
  };
  // Chapters are stored in reverse so the test proves the spine, not the zip order, sets the reading order.
  for (let i = chapters.length - 1; i >= 0; i--) {
    files[`OEBPS/text/chapter${i}.xhtml`] =
      `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c${i}</title></head><body><p>${esc(chapters[i] ?? "")}</p></body></html>`;
  }
  return storedZip(files);
}
