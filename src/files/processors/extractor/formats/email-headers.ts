/**
 * Header fields of a message that name where it came from, beyond From/To/Cc/Reply-To: the bounce
 * address, the sending client's address, the signing domains, the unsubscribe links, the host that
 * wrote the Message-ID. Raw header lines in, one metadata field each out (so each indicator found
 * there says which header held it).
 */

/** Values kept per header name (a message can carry 50,000 `Received` lines). */
export const MAX_HEADER_VALUES = 100;
/** Longer values are cut: the fields read here are addresses and short lists. */
const MAX_VALUE_CHARS = 4096;

/** Header name → metadata field, for headers whose whole value is kept. */
const KEPT: Record<string, string> = {
  "return-path": "return_path",
  sender: "sender",
  "x-originating-ip": "x_originating_ip",
  "x-sender-ip": "x_sender_ip",
  "authentication-results": "authentication_results",
  "arc-authentication-results": "authentication_results",
  "list-unsubscribe": "list_unsubscribe",
};

/** `d=domain` in a DKIM-Signature (the rest is base64 and tags, not indicators). */
const DKIM_DOMAIN = /(?:^|;)\s*d\s*=\s*([A-Za-z0-9.-]{1,253})\s*(?:;|$)/;
/** `<left@host>`: the host part of a Message-ID. */
const MESSAGE_ID_HOST = /@([A-Za-z0-9.-]{1,253})>?\s*$/;

export interface HeaderLine {
  key: string;
  line: string;
}

/** The fields, each a list of at most MAX_HEADER_VALUES values, in message order. */
export function headerFields(lines: readonly HeaderLine[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (field: string, value: string | undefined) => {
    if (!value) return;
    const list = out[field] ?? [];
    out[field] = list;
    if (list.length < MAX_HEADER_VALUES) list.push(value.slice(0, MAX_VALUE_CHARS));
  };
  for (const { key, line } of lines) {
    const name = key.toLowerCase();
    const field = KEPT[name];
    if (!field && name !== "dkim-signature" && name !== "message-id") continue;
    const value = fieldValue(line);
    if (field) add(field, value);
    else if (name === "dkim-signature") add("dkim_domains", DKIM_DOMAIN.exec(value)?.[1]?.toLowerCase());
    else add("message_id_host", MESSAGE_ID_HOST.exec(value)?.[1]?.toLowerCase());
  }
  return out;
}

/** The value after `Name:`, unfolded, bounded before any pattern sees it. */
function fieldValue(line: string): string {
  const colon = line.indexOf(":");
  return line
    .slice(colon + 1, colon + 1 + MAX_VALUE_CHARS)
    .replace(/\r?\n[ \t]+/g, " ")
    .trim();
}
