/**
 * Email (RFC 822 / MIME) with mailparser: headers, the text body (or the HTML body as text), the
 * attachment list, and the text of attached documents, one level deeper.
 */
import { simpleParser } from "mailparser";
import type { Extracted, ExtractLimits } from "../result.ts";
import { htmlToText } from "./html.ts";

type Recurse = (bytes: Buffer, name: string, depth: number) => Promise<Extracted & { type: string }>;

const addresses = (v: unknown): string | undefined => {
  if (!v) return undefined;
  const list = Array.isArray(v) ? v : [v];
  return (
    list
      .map((a) => (a as { text?: string }).text ?? "")
      .filter(Boolean)
      .join(", ") || undefined
  );
};

export async function extractEmail(
  bytes: Buffer,
  depth: number,
  limits: ExtractLimits,
  recurse: Recurse,
): Promise<Extracted> {
  const mail = await simpleParser(bytes, { skipImageLinks: true, skipTextToHtml: true });
  const body = mail.text?.trim() || (typeof mail.html === "string" ? htmlToText(mail.html) : "");
  const texts = [body];
  const attachments: Array<Record<string, unknown>> = [];
  for (const a of mail.attachments.slice(0, limits.maxArchiveEntries)) {
    const info: Record<string, unknown> = {
      filename: a.filename ?? null,
      content_type: a.contentType,
      size: a.size,
    };
    if (depth + 1 <= limits.maxDepth) {
      try {
        const inner = await recurse(a.content, a.filename ?? "attachment", depth + 1);
        info.type = inner.type;
        if (inner.text.trim()) texts.push(`── attachment ${a.filename ?? ""} ──\n${inner.text}`);
      } catch (err) {
        info.error = err instanceof Error ? err.message : String(err);
      }
    }
    attachments.push(info);
  }
  const headers: Record<string, unknown> = {
    from: addresses(mail.from),
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    reply_to: addresses(mail.replyTo),
    subject: mail.subject,
    message_id: mail.messageId,
    in_reply_to: mail.inReplyTo,
    attachment_count: attachments.length,
    attachments,
  };
  for (const [k, v] of Object.entries(headers)) if (v === undefined) delete headers[k];
  const received = mail.headers.get("received");
  if (received) headers.received = Array.isArray(received) ? received.map(String) : [String(received)];
  return {
    text: texts.filter(Boolean).join("\n\n"),
    title: mail.subject ?? null,
    created: mail.date ? mail.date.toISOString() : null,
    extra: { mail: headers },
  };
}
