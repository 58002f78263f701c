/**
 * Outlook MSG with @kenjiuno/msgreader: subject, sender, recipients, dates, the text body (or the
 * HTML body as text), the attachment list and the text of attached documents (one level deeper,
 * under the same limits as email). Embedded messages are read as messages.
 */
import { TextDecoder } from "node:util";
import { decompressRTF } from "@kenjiuno/decompressrtf";
import msgreader, { type FieldsData } from "@kenjiuno/msgreader";
import { deEncapsulateSync } from "rtf-stream-parser";
import { type Extracted, type ExtractLimits, isoDate, ParseFailure, type Recurse } from "../result.ts";
import { htmlToText } from "./html.ts";
import { extractRtf, isRtf } from "./rtf.ts";

const OUTLOOK = "application/vnd.ms-outlook";

// The package is CommonJS: its class is the `default` property of the module.
const MsgReader = msgreader.default;

const person = (name?: string, email?: string) =>
  name && email && name !== email ? `"${name}" <${email}>` : email || name || undefined;

function recipients(fields: FieldsData, kind: "to" | "cc" | "bcc"): string | undefined {
  const list = (fields.recipients ?? [])
    .filter((r) => (r.recipType ?? "to") === kind)
    .map((r) => person(r.name, r.smtpAddress || r.email))
    .filter(Boolean);
  return list.length ? list.join(", ") : undefined;
}

function bodyText(fields: FieldsData): string {
  if (fields.body?.trim()) return fields.body;
  if (fields.bodyHtml) return htmlToText(fields.bodyHtml);
  if (fields.html) return htmlToText(Buffer.from(fields.html).toString("utf8"));
  if (fields.compressedRtf) return rtfBodyText(fields.compressedRtf);
  return "";
}

/**
 * The body of messages that keep only PidTagRtfCompressed: decompressed, then either the HTML or
 * text Outlook encapsulated in it ([MS-OXRTFEX], with rtf-stream-parser) or plain RTF.
 */
function rtfBodyText(compressed: Uint8Array): string {
  const data = Buffer.from(compressed);
  // The header's size is trusted by the decompressor, which would loop far past a lying one.
  if (data.length < 16 || data.readUInt32LE(0) + 4 > data.length) return "";
  let rtf: Buffer;
  try {
    rtf = Buffer.from(decompressRTF([...data]));
  } catch {
    return "";
  }
  if (/\\from(html|text)/.test(rtf.subarray(0, 1024).toString("latin1"))) {
    try {
      const out = deEncapsulateSync(rtf, {
        decode: (bytes: Buffer, encoding: string) => decodeCodepage(bytes, encoding),
        warn: () => {},
      });
      const text = String(out.text);
      return out.mode === "html" ? htmlToText(text) : text;
    } catch {
      // Not well encapsulated after all: read it as RTF.
    }
  }
  return isRtf(rtf) ? extractRtf(rtf).text : "";
}

/** rtf-stream-parser names code pages "cp1252", "cp936"…; TextDecoder knows them as windows-N or by name. */
function decodeCodepage(bytes: Buffer, encoding: string): string {
  const n = /^cp(\d+)$/.exec(encoding)?.[1];
  const label = n
    ? ({ "932": "shift_jis", "936": "gbk", "949": "euc-kr", "950": "big5", "65001": "utf-8" }[n] ??
      `windows-${n}`)
    : encoding;
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return bytes.toString("latin1");
  }
}

function headersOf(fields: FieldsData, attachments: Array<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    from: person(fields.senderName, fields.senderSmtpAddress || fields.senderEmail),
    to: recipients(fields, "to"),
    cc: recipients(fields, "cc"),
    bcc: recipients(fields, "bcc"),
    subject: fields.subject,
    message_id: fields.messageId,
    message_class: fields.messageClass,
    attachment_count: attachments.length,
    attachments,
  };
  for (const [k, v] of Object.entries(out)) if (v === undefined || v === "") delete out[k];
  const received = fields.headers?.match(/^Received:[^\n]*(?:\n[ \t][^\n]*)*/gim);
  if (received?.length)
    out.received = received.map((r) => r.replace(/^Received:\s*/i, "").replace(/\s+/g, " "));
  return out;
}

export async function extractMsg(
  bytes: Buffer,
  depth: number,
  limits: ExtractLimits,
  recurse: Recurse,
): Promise<Extracted> {
  let reader: InstanceType<typeof MsgReader>;
  let fields: FieldsData;
  try {
    reader = new MsgReader(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    );
    fields = reader.getFileData();
  } catch (err) {
    throw new ParseFailure(`unreadable Outlook message: ${err instanceof Error ? err.message : err}`);
  }
  if (fields.error) throw new ParseFailure(`unreadable Outlook message: ${fields.error}`);
  const budget = { bytes: limits.maxArchiveBytes };
  const { texts, attachments } = await readAttachments(fields, reader, depth, limits, recurse, budget);
  const date = fields.clientSubmitTime ?? fields.messageDeliveryTime ?? fields.creationTime;
  return {
    text: [bodyText(fields), ...texts].filter((t) => t.trim()).join("\n\n"),
    title: fields.subject ?? null,
    created: isoDate(date),
    extra: { mail: headersOf(fields, attachments) },
  };
}

type Attachments = { texts: string[]; attachments: Array<Record<string, unknown>> };

/**
 * The attachments of a message (or of a message attached to it, recursively): listed, and the
 * text of each read one level deeper, within the depth, the entry count and a byte budget shared
 * by the whole message. An attached message gives its headers, body and its own attachments.
 */
async function readAttachments(
  fields: FieldsData,
  reader: InstanceType<typeof MsgReader>,
  depth: number,
  limits: ExtractLimits,
  recurse: Recurse,
  budget: { bytes: number },
): Promise<Attachments> {
  const texts: string[] = [];
  const attachments: Array<Record<string, unknown>> = [];
  for (const a of (fields.attachments ?? []).slice(0, limits.maxArchiveEntries)) {
    const name = a.fileName ?? a.fileNameShort ?? a.name ?? "attachment";
    const info: Record<string, unknown> = { filename: name, content_type: a.attachMimeTag ?? null };
    attachments.push(info);
    if (depth + 1 > limits.maxDepth) {
      recurse.skipped?.(name, a.contentLength ?? null, "limit", `nesting deeper than ${limits.maxDepth}`);
      continue;
    }
    if (a.innerMsgContent && a.innerMsgContentFields) {
      const inner = a.innerMsgContentFields;
      info.type = OUTLOOK;
      // A node of its own: its attachments' paths go through it.
      const message = recurse.within?.(name, OUTLOOK) ?? { recurse, own: (text: string) => text };
      const nested = await readAttachments(inner, reader, depth + 1, limits, message.recurse, budget);
      info.mail = headersOf(inner, nested.attachments);
      const sent = isoDate(inner.clientSubmitTime ?? inner.messageDeliveryTime ?? inner.creationTime);
      if (sent) info.date = sent;
      const heading = [
        inner.subject,
        person(inner.senderName, inner.senderSmtpAddress || inner.senderEmail),
        sent,
      ]
        .filter(Boolean)
        .join("\n");
      const own = [`${heading}\n${bodyText(inner)}`, ...nested.texts].join("\n\n");
      texts.push(`── attachment ${name} ──\n${message.own(own)}`);
      continue;
    }
    info.size = a.contentLength ?? null;
    if ((a.contentLength ?? 0) > budget.bytes) {
      info.error = "not read: over the archive bytes budget";
      recurse.skipped?.(name, a.contentLength ?? null, "limit", `more than ${limits.maxArchiveBytes} bytes`);
      continue;
    }
    try {
      const content = Buffer.from(reader.getAttachment(a).content);
      budget.bytes -= content.length;
      info.size = content.length;
      const inner = await recurse(content, name, depth + 1);
      info.type = inner.type;
      if (inner.text.trim()) texts.push(`── attachment ${name} ──\n${inner.text}`);
    } catch (err) {
      info.error = err instanceof Error ? err.message : String(err);
    }
  }
  return { texts, attachments };
}
