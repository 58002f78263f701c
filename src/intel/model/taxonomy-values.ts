/**
 * What a person types, made into the value Loupe stores: trimmed, refanged (`hxxp`, `[.]`, `(.)`,
 * `[at]`), case-folded where case means nothing, a trailing root dot dropped, a scheme added to a
 * bare URL. Each type also has a length cap, checked before any pattern runs.
 */
import { domainToASCII } from "node:url";

/** Longest value of each type with a format; every other type gets FREE_TEXT_MAX. */
export const VALUE_CAPS: Readonly<Record<string, number>> = {
  IPV4: 15,
  IPV6: 45,
  MAC: 17,
  CIDR: 18,
  DOMAIN: 253,
  HOSTNAME: 253,
  EMAIL: 254,
  PHONE: 32,
  URL: 2048,
  URI: 2048,
  MD5: 32,
  SHA1: 40,
  SHA256: 64,
  PATH: 1024,
  CVE: 32,
  ASN: 12,
};

/** Names, free text: long enough for any real name, short enough that nobody fills the database with them. */
export const FREE_TEXT_MAX = 256;

export function valueCap(type: string): number {
  return VALUE_CAPS[type] ?? FREE_TEXT_MAX;
}

// Plain alternations without nested quantifiers: linear in V8's engine too.
const DEFANG_DOTS = /\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\{dot\}/gi;
const DEFANG_COLON = /\[:\]|\(:\)/g;
const DEFANG_SCHEME = /^(?:hxxps?|fxp)(?=\[?:)/i;
const DEFANG_AT = /\[at\]|\(at\)|\{at\}|\[@\]|\(@\)/gi;
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff]/g;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const ROOT_DOT = /\.$/;
const HOST_END = /[/?#]/;
const PORT = /:\d*$/;
const ASN_PREFIX = /^as\s*/i;
const SPACES = /\s+/g;
export const CONTROL = /\p{Cc}/u;

/**
 * Every V8 (backtracking) regular expression that runs on a raw value: a test proves each one
 * linear with a ReDoS checker. The types' formats themselves run on RE2.
 */
export const NORMALISING_PATTERNS: readonly RegExp[] = [
  DEFANG_DOTS,
  DEFANG_COLON,
  DEFANG_SCHEME,
  DEFANG_AT,
  INVISIBLE,
  HAS_SCHEME,
  ROOT_DOT,
  HOST_END,
  PORT,
  ASN_PREFIX,
  SPACES,
  CONTROL,
];

/** Defanged forms back to what they stand for (`hxxps[:]//evil[.]example` → `https://evil.example`). */
export function refang(value: string): string {
  return value
    .replace(DEFANG_SCHEME, (s) => s.toLowerCase().replaceAll("x", "t"))
    .replaceAll("[://]", "://")
    .replace(DEFANG_COLON, ":")
    .replace(DEFANG_DOTS, ".")
    .replaceAll("[/]", "/");
}

function hostName(host: string): string {
  const bare = host.toLowerCase().replace(ROOT_DOT, "");
  // An internationalised name becomes its ASCII (punycode) form, the one vendors index.
  return domainToASCII(bare) || bare;
}

function normaliseUrl(value: string): string {
  const withScheme = HAS_SCHEME.test(value) ? value : `http://${value}`;
  const schemeEnd = withScheme.indexOf("://") + 3;
  let hostEnd = withScheme.slice(schemeEnd).search(HOST_END);
  hostEnd = hostEnd < 0 ? withScheme.length : schemeEnd + hostEnd;
  const authority = withScheme.slice(schemeEnd, hostEnd);
  const port = PORT.exec(authority)?.[0] ?? "";
  const host = authority.slice(0, authority.length - port.length);
  const rest = withScheme.slice(hostEnd);
  const scheme = withScheme.slice(0, schemeEnd).toLowerCase();
  const hostPart = host.startsWith("[") ? host.toLowerCase() : hostName(host);
  return scheme + hostPart + port + (rest.startsWith("?") || rest.startsWith("#") ? `/${rest}` : rest);
}

function normaliseEmail(value: string): string {
  const email = value.replace(DEFANG_AT, "@");
  const at = email.lastIndexOf("@");
  if (at < 0) return email;
  return `${email.slice(0, at)}@${hostName(email.slice(at + 1))}`;
}

function normaliseIpv6(value: string): string {
  try {
    // The WHATWG URL parser writes an IPv6 address in its canonical, compressed form.
    return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  } catch {
    return value.toLowerCase();
  }
}

/** `192.168.001.010` → `192.168.1.10`: people mean decimal (never inet_aton's octal). */
function decimalOctets(ip: string): string {
  const parts = ip.split(".");
  if (parts.length !== 4 || !parts.every((p) => p.length > 0 && p.length <= 3 && [...p].every(isDigit)))
    return ip;
  return parts.map((p) => String(Number(p))).join(".");
}

const isDigit = (c: string) => c >= "0" && c <= "9";

const NORMALISERS: Readonly<Record<string, (value: string) => string>> = {
  DOMAIN: (v) => hostName(refang(v)),
  HOSTNAME: (v) => hostName(refang(v)),
  URL: (v) => normaliseUrl(refang(v)),
  URI: (v) => refang(v),
  EMAIL: (v) => normaliseEmail(refang(v)),
  IPV4: (v) => decimalOctets(refang(v)),
  IPV6: (v) => refang(v).toLowerCase(),
  CIDR: (v) => {
    const cidr = refang(v);
    const slash = cidr.indexOf("/");
    return slash < 0 ? cidr : `${decimalOctets(cidr.slice(0, slash))}${cidr.slice(slash)}`;
  },
  CVE: (v) => v.toUpperCase(),
  MD5: (v) => v.toLowerCase(),
  SHA1: (v) => v.toLowerCase(),
  SHA256: (v) => v.toLowerCase(),
  MAC: (v) => v.toLowerCase().replaceAll("-", ":"),
  ASN: (v) => `AS${v.replace(ASN_PREFIX, "")}`,
  PHONE: (v) => v.replace(SPACES, " "),
};

/** Applied once the value matched its pattern: the canonical spelling of an equal value. */
const CANONICAL: Readonly<Record<string, (value: string) => string>> = {
  IPV6: normaliseIpv6,
};

/** The value a person meant, in the spelling Loupe stores (not yet checked against the type's format). */
export function normaliseValue(type: string, value: string): string {
  const trimmed = value.replace(INVISIBLE, "").trim();
  return NORMALISERS[type]?.(trimmed) ?? trimmed;
}

export function canonicalValue(type: string, value: string): string {
  return CANONICAL[type]?.(value) ?? value;
}
