/**
 * The indicators a source lists in machine-readable form beside its prose: MISP events (JSON, bare
 * or wrapped in "response"), STIX 2 bundles and plain one-per-line lists (hash lists, defanged
 * network lists, the first cell of a CSV). Each
 * becomes [kind, value] in the scanner's kinds and normal form, so the two can be compared.
 */

export type Listed = [kind: string, value: string];

/** MISP attribute types that name something the scanner claims to find, by the scanner's kind. */
const MISP_KINDS: Record<string, string> = {
  md5: "md5",
  sha1: "sha1",
  sha256: "sha256",
  domain: "domain",
  hostname: "domain",
  "ip-dst": "ip",
  "ip-src": "ip",
  ip: "ip", // the right side of "domain|ip"
  url: "url",
  "email-src": "email",
  "email-dst": "email",
  email: "email",
  btc: "bitcoin",
  vulnerability: "cve",
};

interface MispAttribute {
  type?: string;
  value?: string;
}

function attributesOf(event: Record<string, unknown>): MispAttribute[] {
  const own = (event.Attribute as MispAttribute[] | undefined) ?? [];
  const objects = (event.Object as Array<{ Attribute?: MispAttribute[] }> | undefined) ?? [];
  return [...own, ...objects.flatMap((o) => o.Attribute ?? [])];
}

/** "filename|sha1", "domain|ip", "ip-dst|port": composite types carry one value per side. */
export function fromMisp(json: string): Listed[] {
  const doc = JSON.parse(json) as Record<string, unknown>;
  const wrapped = (doc.response as Array<{ Event?: Record<string, unknown> }> | undefined) ?? [doc];
  const out: Listed[] = [];
  for (const item of wrapped) {
    const event = (item.Event as Record<string, unknown> | undefined) ?? item;
    for (const a of attributesOf(event)) {
      const types = (a.type ?? "").split("|");
      const values = (a.value ?? "").split("|");
      if (types.length !== values.length) continue;
      types.forEach((t, i) => {
        const kind = MISP_KINDS[t];
        const value = values[i]?.trim();
        // A "url" without a scheme ("host:80", "host/x.js") is read as a line of a plain list: its host.
        const one = kind === "url" && value && !value.includes("://") ? fromLine(value) : null;
        if (one) out.push(one);
        else if (kind && value) out.push([kind, normal(kind, value)]);
      });
    }
  }
  return out;
}

/** STIX 2 observable types the scanner claims to find. */
const STIX_VALUE = /\[(domain-name|url|email-addr|ipv4-addr|ipv6-addr):value\s*=\s*'([^']+)'\]/;
const STIX_HASH = /\[file:hashes\.'?(MD5|SHA-1|SHA1|SHA-256|SHA256)'?\s*=\s*'([^']+)'\]/i;
const STIX_KINDS: Record<string, string> = {
  "domain-name": "domain",
  url: "url",
  "email-addr": "email",
  "ipv4-addr": "ip",
  "ipv6-addr": "ip",
};

/** A STIX 2 bundle (JSON, or one object per line): the value of each indicator's simple pattern. */
export function fromStix(text: string): Listed[] {
  const out: Listed[] = [];
  for (const m of text.matchAll(/"pattern"\s*:\s*"((?:[^"\\]|\\.){1,4000})"/g)) {
    const pattern = JSON.parse(`"${m[1]}"`) as string;
    const value = STIX_VALUE.exec(pattern);
    const kind = value ? STIX_KINDS[value[1] ?? ""] : undefined;
    if (kind && value?.[2]) out.push([kind, normal(kind, value[2])]);
    const hash = STIX_HASH.exec(pattern);
    const algorithm = hash?.[1]?.toLowerCase().replace("-", "");
    if (algorithm && hash?.[2]) out.push([algorithm, hash[2].toLowerCase()]);
  }
  return out;
}

/** Undoes the common defangs, independently of the scanner's own refanging. */
export function looseRefang(s: string): string {
  return s
    .replace(/\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)/gi, ".")
    .replace(/\[:\]/g, ":")
    .replace(/\[(?:at|@)\]|\((?:at|@)\)/gi, "@")
    .replace(/\bhxxp/gi, "http")
    .replace(/\bfxp/gi, "ftp");
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * One line of a plain list (of a CSV, its first cell): a hash, an address (a port is dropped), an
 * e-mail address, a URL, or a host (a path without a scheme leaves the host).
 */
export function fromLine(raw: string): Listed | null {
  const line = looseRefang(raw.split(",")[0]?.trim() ?? "");
  if (!line || line.startsWith("#") || /\s/.test(line)) return null;
  if (/^[^@/]+@[a-z0-9.-]+\.[a-z]{2,}$/i.test(line)) return ["email", line.toLowerCase()];
  const hash = { 32: "md5", 40: "sha1", 64: "sha256" }[line.length];
  if (hash && /^[0-9a-f]+$/i.test(line)) return [hash, line.toLowerCase()];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(line)) return ["url", normal("url", line)];
  const host = line.split("/")[0]?.replace(/:\d+$/, "") ?? "";
  if (IPV4.test(host)) return ["ip", host];
  if (/^[a-z0-9.-]+\.[a-z0-9-]{2,}$/i.test(host)) return ["domain", host.toLowerCase()];
  return null;
}

/** The form both sides are compared in: lower case, no trailing dot or slash. */
export function normal(kind: string, value: string): string {
  const v = looseRefang(value.trim());
  if (kind === "url") return v.replace(/\/+$/, "").toLowerCase();
  return v.replace(/\.$/, "").toLowerCase();
}
