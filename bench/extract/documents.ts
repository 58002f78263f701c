/**
 * Inputs for the extraction benchmark: a long report written as HTML and turned into PDF and
 * DOCX by LibreOffice (a real producer, with its fonts, ToUnicode maps and table layout), and a
 * ~200 MB PDF written object by object (big JPEG images plus text pages), which LibreOffice
 * would take minutes to make.
 */
import { execFile } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";

const run = promisify(execFile);

const WORDS =
  "analyst beacon campaign domain dropper encrypted exfiltration firewall gateway hash indicator infrastructure lateral loader macro malware network operator payload persistence phishing process registry sample sandbox script server signature spear subnet telemetry threat traffic tunnel victim vulnerability workstation archive attachment certificate credential download executable forensic incident intrusion keylogger mailbox memory module obfuscated packet privilege ransomware remote report schedule service session timeline token upload verdict café naïve Zürich résumé Ångström façade".split(
    " ",
  );

/** A deterministic generator, so every run extracts the same words. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sentence(rand: () => number): string {
  const n = 6 + Math.floor(rand() * 12);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)] as string);
  const first = words[0] as string;
  words[0] = first[0]?.toUpperCase() + first.slice(1);
  if (rand() < 0.3) words.splice(1 + Math.floor(rand() * (n - 1)), 0, String(Math.floor(rand() * 100000)));
  return `${words.join(" ")}.`;
}

/**
 * `pages` sections, each starting a new page: a heading, a sub-heading, paragraphs of varied
 * length that fill most of a page, and every tenth page a small table instead of one paragraph.
 */
export function longReportHtml(pages: number): string {
  const rand = prng(42);
  const out: string[] = [
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Incident report 2026-117</title></head><body>',
  ];
  for (let p = 1; p <= pages; p++) {
    const breakStyle = p > 1 ? ' style="page-break-before: always"' : "";
    out.push(`<h1${breakStyle}>Section ${p}: ${sentence(rand).slice(0, -1)}</h1>`);
    out.push(`<h2>Findings of day ${p}</h2>`);
    const paragraphs = p % 10 === 0 ? 3 : 5;
    for (let i = 0; i < paragraphs; i++) {
      const sentences = 2 + Math.floor(rand() * 3);
      out.push(`<p>${Array.from({ length: sentences }, () => sentence(rand)).join(" ")}</p>`);
    }
    if (p % 10 === 0) {
      out.push('<table border="1"><tr><th>Host</th><th>Indicator</th><th>First seen</th></tr>');
      for (let r = 0; r < 5; r++)
        out.push(
          `<tr><td>ws-${p}-${r}</td><td>${WORDS[Math.floor(rand() * WORDS.length)]}-${Math.floor(rand() * 9999)}</td><td>2026-0${1 + (r % 9)}-1${r}</td></tr>`,
        );
      out.push("</table>");
    }
  }
  out.push("</body></html>");
  return out.join("\n");
}

/** LibreOffice headless with its own profile (a shared one would clash with other runs). */
export class LibreOffice {
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  private get profile(): string {
    return `-env:UserInstallation=file://${path.join(this.dir, "lo-profile")}`;
  }

  /** Converts `input` into `outDir` with `filter` (e.g. `pdf:writer_pdf_Export`); returns the output path. */
  async convert(input: string, filter: string, outDir: string, infilter?: string): Promise<string> {
    await mkdir(outDir, { recursive: true });
    const args = [this.profile, "--headless", "--norestore"];
    if (infilter) args.push(`--infilter=${infilter}`);
    args.push("--convert-to", filter, "--outdir", outDir, input);
    await run("soffice", args, { timeout: 600_000, maxBuffer: 1 << 20 });
    const ext = filter.split(":")[0] as string;
    return path.join(outDir, `${path.basename(input, path.extname(input))}.${ext}`);
  }
}

/** The 200-page report as PDF and DOCX, both written by LibreOffice from the same HTML. */
export async function makeReport(
  dir: string,
  pages: number,
  office: LibreOffice,
): Promise<{ pdf: string; docx: string }> {
  const html = path.join(dir, "report.html");
  await writeFile(html, longReportHtml(pages));
  const writer = "HTML (StarWriter)";
  const pdf = await office.convert(html, "pdf:writer_pdf_Export", dir, writer);
  const docx = await office.convert(html, "docx:MS Word 2007 XML", dir, writer);
  return { pdf, docx };
}

/**
 * A PDF of about `megabytes` MB: `imagePages` pages each showing its own copy of a large
 * photo-like JPEG (DCTDecode, stored as is) with a caption, plus `textPages` pages of text.
 * Offsets are counted while streaming to disk, so the file is never whole in memory here.
 */
export async function makeBigPdf(file: string, megabytes: number, textPages = 50): Promise<void> {
  const side = 2400;
  const noise = Buffer.alloc(side * side * 3);
  const rand = prng(7);
  for (let i = 0; i < noise.length; i++) noise[i] = (rand() * 256) | 0;
  const jpeg = await sharp(noise, { raw: { width: side, height: side, channels: 3 } })
    .blur(0.6)
    .jpeg({ quality: 92 })
    .toBuffer();
  const imagePages = Math.max(1, Math.round((megabytes * 1024 * 1024) / jpeg.length));
  const pageCount = imagePages + textPages;
  // Objects: 1 catalog, 2 pages, 3 font, 4 info; then per page: page, content (, image).
  const tmp = `${file}.part`;
  const out = createWriteStream(tmp);
  const offsets: number[] = [];
  let written = 0;
  const write = (chunk: Buffer | string) =>
    new Promise<void>((resolve, reject) => {
      const b = typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk;
      written += b.length;
      out.write(b, (err) => (err ? reject(err) : resolve()));
    });
  const object = async (n: number, body: string | Buffer[]) => {
    offsets[n] = written;
    await write(`${n} 0 obj\n`);
    if (typeof body === "string") await write(body);
    else for (const part of body) await write(part);
    await write("\nendobj\n");
  };
  await write("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n");
  const pageIds: number[] = [];
  let next = 5;
  const textRand = prng(99);
  for (let p = 0; p < pageCount; p++) {
    const pageId = next++;
    const contentId = next++;
    pageIds.push(pageId);
    const isImage = p < imagePages;
    const imageId = isImage ? next++ : 0;
    const lines = isImage
      ? [`Exhibit ${p + 1}: captured screen of workstation ${p + 1}`]
      : Array.from({ length: 40 }, () => sentence(textRand).slice(0, 90));
    const textOps = lines
      .map(
        (l, i) =>
          `BT /F1 10 Tf 50 ${760 - i * 17} Td (${l.replace(/[()\\]/g, "\\$&").replace(/[^\x20-\x7e]/g, "?")}) Tj ET`,
      )
      .join("\n");
    const content = isImage ? `q 500 0 0 500 56 200 cm /Im1 Do Q\n${textOps}` : textOps;
    const resources = isImage
      ? `<< /Font << /F1 3 0 R >> /XObject << /Im1 ${imageId} 0 R >> >>`
      : "<< /Font << /F1 3 0 R >> >>";
    await object(
      pageId,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents ${contentId} 0 R >>`,
    );
    await object(
      contentId,
      `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`,
    );
    if (isImage) {
      await object(imageId, [
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`,
        ),
        jpeg,
        Buffer.from("\nendstream"),
      ]);
    }
  }
  await object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  await object(
    2,
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pageCount} >>`,
  );
  await object(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  await object(
    4,
    "<< /Title (Large exhibit bundle) /Producer (Loupe bench) /CreationDate (D:20261123100000Z) >>",
  );
  const xref = written;
  let table = `xref\n0 ${next}\n0000000000 65535 f \n`;
  for (let n = 1; n < next; n++) table += `${String(offsets[n]).padStart(10, "0")} 00000 n \n`;
  await write(`${table}trailer\n<< /Size ${next} /Root 1 0 R /Info 4 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  await rename(tmp, file);
}
