/**
 * The delivery shapes an analyst meets, built at run time around one payload (EICAR, or a clean
 * file): password-protected archives, nested archives, a mail whose body gives the password, a PDF
 * attachment, a DOCX embedded object, an Outlook MSG attachment. Each shape names where the
 * payload must be found (its node path), and an RTF embedded object. Real tools write them (zip,
 * 7zz, qpdf); nothing is checked in.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as CFB from "cfb";
import { unzipSync } from "fflate";
import { docxOf, multipartEmail, simplePdf } from "./documents.ts";
import { buildMsg } from "./msg.ts";
import { encryptedZip, sevenZipArchive } from "./sevenzip.ts";
import { storedZip } from "./zip.ts";

const run = promisify(execFile);

export interface Shape {
  name: string;
  bytes: Buffer;
  /** The node path the payload sits at. */
  path: string;
}

/** A Packager (`\x01Ole10Native`) stream, as Word stores an embedded file: size, flags, label, source, reserved, temp path, data. */
export function ole10Native(label: string, data: Buffer): Buffer {
  const z = (s: string) => Buffer.from(`${s}\0`, "latin1");
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const temp = z(`C:\\Users\\x\\AppData\\Local\\Temp\\${label}`);
  const body = Buffer.concat([
    Buffer.from([2, 0]),
    z(label),
    z(`C:\\Users\\x\\Desktop\\${label}`),
    u32(0x00030000),
    u32(temp.length),
    temp,
    u32(data.length),
    data,
  ]);
  return Buffer.concat([u32(body.length), body]);
}

/** A DOCX with a file embedded as an OLE Package object (`word/embeddings/oleObject1.bin`). */
export function docxWithObject(label: string, data: Buffer): Buffer {
  const object = CFB.utils.cfb_new();
  CFB.utils.cfb_add(object, "/\u0001Ole10Native", ole10Native(label, data));
  const oleBin = Buffer.from(CFB.write(object, { type: "buffer" }) as Uint8Array);
  const base = docxOf(
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Please see the attached object.</w:t></w:r></w:p></w:body></w:document>`,
  );
  const parts = Object.fromEntries(
    Object.entries(unzipSync(new Uint8Array(base))).map(([k, v]) => [k, Buffer.from(v)]),
  );
  return storedZip({ ...parts, "word/embeddings/oleObject1.bin": oleBin });
}

/** An RTF embedding `data` as an OLE1 Package object (`{\object\objemb … {\*\objdata <hex>}}`), as Word writes one. */
export function rtfWithObject(label: string, data: Buffer): Buffer {
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const cstring = (v: string) => Buffer.concat([u32(v.length + 1), Buffer.from(`${v}\0`, "latin1")]);
  const native = ole10Native(label, data).subarray(4);
  const ole1 = Buffer.concat([
    u32(0x0501),
    u32(2),
    cstring("Package"),
    u32(0),
    u32(0),
    u32(native.length),
    native,
  ]);
  const hex = ole1.toString("hex").replace(/.{128}/g, "$&\r\n");
  return Buffer.from(
    `{\\rtf1\\ansi\\deff0 Please open the attached form.\\par{\\object\\objemb{\\*\\objclass Package}{\\*\\objdata ${hex}}}}`,
    "latin1",
  );
}

/** A PDF with `file` attached by qpdf (an embedded file of the document). */
export async function pdfWithAttachment(name: string, file: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-pdf-attach-"));
  try {
    const pdf = simplePdf("Invoice attached.", {
      title: "Invoice",
      author: "Accounts",
      created: "D:20261101000000Z",
    });
    await writeFile(path.join(dir, "in.pdf"), pdf);
    await writeFile(path.join(dir, name), file);
    await run("qpdf", ["in.pdf", "--add-attachment", name, "--", "out.pdf"], { cwd: dir, timeout: 60_000 });
    return await readFile(path.join(dir, "out.pdf"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every shape around `payload` (named `eicar.com`); `password` is one of the default list. */
export async function corpus(payload: Buffer, password = "infected"): Promise<Shape[]> {
  const file = "eicar.com";
  const locked = await encryptedZip({ [file]: payload }, { password, method: "aes256" });
  const mailLocked = await encryptedZip({ [file]: payload }, { password: "tulip-42", method: "zipcrypto" });
  const hidden = await sevenZipArchive({ [file]: payload }, { password, encryptHeaders: true });
  const mail = multipartEmail({
    subject: "Invoice",
    body: "Hello,\nthe invoice is attached. The password is tulip-42\nRegards",
    attachmentName: "invoice.zip",
    attachment: mailLocked,
  });
  const msg = buildMsg({
    subject: "Invoice",
    senderName: "Accounts",
    senderEmail: "accounts@example.org",
    recipients: [{ name: "Bob", email: "bob@example.org", kind: "to" }],
    body: "The invoice is attached.",
    sent: new Date("2026-11-10T09:15:00Z"),
    attachments: [{ fileName: "invoice.zip", mimeType: "application/zip", content: locked }],
  });
  return [
    { name: "invoice.zip", bytes: locked, path: `invoice.zip › ${file}` },
    { name: "hidden.7z", bytes: hidden, path: `hidden.7z › ${file}` },
    {
      name: "outer.zip",
      bytes: storedZip({ "inner.zip": storedZip({ "invoice.zip": locked }) }),
      path: `outer.zip › inner.zip › invoice.zip › ${file}`,
    },
    { name: "invoice.eml", bytes: Buffer.from(mail), path: `invoice.eml › invoice.zip › ${file}` },
    {
      name: "invoice.pdf",
      bytes: await pdfWithAttachment("invoice.zip", locked),
      path: `invoice.pdf › invoice.zip › ${file}`,
    },
    {
      name: "report.docx",
      bytes: docxWithObject(file, payload),
      path: `report.docx › word/embeddings/oleObject1.bin › ${file}`,
    },
    { name: "invoice.msg", bytes: msg, path: `invoice.msg › invoice.zip › ${file}` },
    { name: "form.rtf", bytes: rtfWithObject(file, payload), path: `form.rtf › ${file}` },
  ];
}
