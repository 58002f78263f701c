/**
 * Email (RFC 822 / MIME) with mailparser: headers, the text body (or the HTML body as text), the
 * attachment list, and the text of attached documents, one level deeper. A message is recognised
 * by its whole header block (as mail servers save it, trace headers first), not by a first line.
 * Passwords the body gives ("the password is infected") are tried first on its attachments.
 */
import { type Attachment, simpleParser } from "mailparser";
import type { Limits } from "../budget.ts";
import { passwordsInText } from "../passwords.ts";
import type { Extracted, Recurse } from "../result.ts";
import { headerFields, MAX_HEADER_VALUES } from "./email-headers.ts";
import { htmlContent, linksField } from "./html.ts";

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

/** Each attachment's type and text, one level deeper (pushed into `texts` and `attachments`). */
async function readAttachments(
  list: Attachment[],
  depth: number,
  limits: Limits,
  recurse: Recurse,
  texts: string[],
  attachments: Array<Record<string, unknown>>,
): Promise<void> {
  if (list.length > limits.maxArchiveEntries)
    recurse.cut?.(`more than ${limits.maxArchiveEntries} attachments`);
  for (const a of list.slice(0, limits.maxArchiveEntries)) {
    const info: Record<string, unknown> = {
      filename: a.filename ?? null,
      content_type: a.contentType,
      size: a.size,
    };
    if (depth + 1 > limits.maxDepth) {
      const why = limits.budget.stop(`nesting deeper than ${limits.maxDepth}`);
      recurse.skipped?.(a.filename ?? "attachment", a.size, "limit", why);
    } else {
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
}

export async function extractEmail(
  bytes: Buffer,
  depth: number,
  limits: Limits,
  recurse: Recurse,
): Promise<Extracted> {
  const mail = await simpleParser(bytes, { skipImageLinks: true, skipTextToHtml: true });
  // The HTML body is read even beside a text one: its link targets are what the reader clicks.
  const html = typeof mail.html === "string" ? htmlContent(mail.html) : null;
  const body = mail.text?.trim() || html?.text || "";
  const texts = [body];
  const attachments: Array<Record<string, unknown>> = [];
  // "The password is infected": tried first on this message's attachments.
  const found = passwordsInText(body);
  const read = () => readAttachments(mail.attachments, depth, limits, recurse, texts, attachments);
  await (limits.keyring ? limits.keyring.during(found, read) : read());
  const headers: Record<string, unknown> = {
    from: addresses(mail.from),
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    reply_to: addresses(mail.replyTo),
    subject: mail.subject,
    message_id: mail.messageId,
    in_reply_to: mail.inReplyTo,
    ...(html ? linksField(html.links, html.truncated) : {}),
    attachment_count: attachments.length,
    attachments,
  };
  for (const [k, v] of Object.entries(headers)) if (v === undefined) delete headers[k];
  const received = mail.headers.get("received");
  if (received)
    headers.received = (Array.isArray(received) ? received : [received])
      .slice(0, MAX_HEADER_VALUES)
      .map(String);
  Object.assign(headers, headerFields(mail.headerLines));
  return {
    text: texts.filter(Boolean).join("\n\n"),
    title: mail.subject ?? null,
    created: mail.date ? mail.date.toISOString() : null,
    extra: { mail: headers },
  };
}

/** How far the header block is read: delivery and filter headers can fill tens of kilobytes. */
const HEADER_SCAN_BYTES = 256 * 1024;
const MAX_HEADER_FIELDS = 500;
/** RFC 5322 field name (printable ASCII but colon), then the colon. */
const FIELD = /^([\x21-\x39\x3b-\x7e]+)[ \t]*:/;
/** Fields only a message carries (HTTP has Date, Server, Content-Type but none of these). */
const AUTHOR_FIELDS = new Set([
  "from",
  "to",
  "cc",
  "subject",
  "message-id",
  "sender",
  "in-reply-to",
  "references",
]);
const MESSAGE_FIELDS = new Set([
  ...AUTHOR_FIELDS,
  "date",
  "mime-version",
  "return-path",
  "received",
  "delivered-to",
  "reply-to",
]);

/**
 * An RFC 5322 message: from the first line (after an mbox `From ` envelope line), an unbroken run
 * of `Name: value` fields and folded continuations that ends at a blank line or the end of the
 * file, with at least two message fields, one of them an author field.
 */
export function looksLikeEmail(bytes: Buffer): boolean {
  const head = bytes.subarray(0, HEADER_SCAN_BYTES).toString("latin1");
  const seen = new Set<string>();
  let fields = 0;
  let first = true;
  for (const line of lines(head)) {
    const envelope = first && /^From \S/.test(line);
    first = false;
    if (envelope) continue;
    if (line === "" || fields > MAX_HEADER_FIELDS) return isMessage(seen);
    if (/^[ \t]/.test(line)) {
      if (fields === 0) return false;
      continue;
    }
    const name = FIELD.exec(line)?.[1]?.toLowerCase();
    if (!name) return false;
    fields++;
    if (MESSAGE_FIELDS.has(name)) seen.add(name);
  }
  // The window ended inside the header block: a message only if the file ended there too.
  return bytes.length <= HEADER_SCAN_BYTES && isMessage(seen);
}

const isMessage = (seen: Set<string>) => seen.size >= 2 && [...seen].some((f) => AUTHOR_FIELDS.has(f));

/** Lines one at a time (CRLF or LF), so a large text without headers stops at its first line. */
function* lines(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    const stop = end === -1 ? text.length : end;
    yield text.slice(start, stop > start && text[stop - 1] === "\r" ? stop - 1 : stop);
    start = stop + 1;
  }
}
