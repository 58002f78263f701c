/**
 * What one token is. A token is a run of non-space characters, so each check sees a bounded string
 * and the scan stays linear; URLs and e-mail addresses are found inside tokens ("href=http://…",
 * "<a@b.com>"), the other kinds must fill the token once its edges are trimmed.
 */
import {
  BITCOIN_BASE58,
  BITCOIN_BECH32,
  CVE,
  EMAIL_LOCAL,
  ETHEREUM,
  HASH,
  IPV4,
  IPV6,
  MONERO,
  REGISTRY_KEY,
  UNIX_PATH,
  URL_SCHEME,
  WINDOWS_PATH,
} from "./patterns.ts";
import type { IocKind } from "./types.ts";
import {
  bareDomain,
  bitcoinBase58,
  bitcoinBech32,
  ipv4,
  ipv6,
  plausibleHash,
  publicDomain,
} from "./validate.ts";

export interface Candidate {
  kind: IocKind;
  value: string;
  /** Offset in the token. */
  start: number;
  end: number;
}

/**
 * Punctuation prose and markup put around an indicator: quotes (typographic too), brackets, Markdown
 * emphasis and AsciiDoc passthroughs ("+x+", "++x++": a URL or a name never ends in "+").
 */
const QUOTES = "'\"‘’‚“”„«»‹›";
const LEADING = new Set([..."([{<*_,;:+", ...QUOTES]);
const TRAILING = new Set([...".,;:!?)]}>*_+", ...QUOTES]);
const SEPARATOR = /[,;=:]/;
/** Every kind but hashes, wallets and CVE ids holds one of these characters. */
const MARK = /[.:@\\/]/;

/** Cheap test that rules out most words of prose before any real work. */
export function mayHold(token: string): boolean {
  if (token.length < 4) return false;
  if (MARK.test(token)) return true;
  return token.length >= 25 || /^.?cve-/i.test(token);
}

const HASH_KIND = { 32: "md5", 40: "sha1", 64: "sha256" } as const;

/** The token without the punctuation prose puts around it; a ")" stays when the token opened one. */
function trim(token: string, from = 0): [number, number] {
  let start = from;
  let end = token.length;
  while (start < end && LEADING.has(token[start] ?? "")) start++;
  while (end > start && TRAILING.has(token[end - 1] ?? "")) {
    if (token[end - 1] === ")" && token.slice(start, end).includes("(")) break;
    end--;
  }
  return [start, end];
}

/**
 * How a token is read: `names` when its text holds file names, where a bare name is not a domain;
 * `defangs`, the spans of the token ([start, end) pairs) that were written defanged: a bare name
 * holding one is a host whatever its case or top-level domain ("tinyurl[.]one"; not "x.zip" beside
 * a defanged "magnet[:]?…").
 */
export interface ClassifyMode {
  includePrivate: boolean;
  names?: boolean;
  defangs?: number[];
}

function defangedIn(mode: ClassifyMode, start: number, end: number): boolean {
  const d = mode.defangs ?? [];
  for (let i = 0; i < d.length; i += 2) if ((d[i] ?? 0) < end && (d[i + 1] ?? 0) > start) return true;
  return false;
}

export function classify(token: string, mode: ClassifyMode): Candidate[] {
  const { includePrivate } = mode;
  const scheme = URL_SCHEME.exec(token);
  if (scheme) return url(token, scheme.index, includePrivate);
  const at = token.indexOf("@");
  if (at > 0) return email(token, at, includePrivate);
  const [start, end] = trim(token);
  const whole = token.slice(start, end);
  const found = standalone(whole, mode, start);
  if (found) return [{ ...found, start, end }];
  const host = hostOfPath(whole, mode, start);
  if (host) return [{ kind: host.kind, value: host.value, start, end: start + host.length }];
  if (!SEPARATOR.test(whole)) return [];
  // "md5:…", "ip=1.2.3.4", "a.com,b.com": try the pieces.
  const out: Candidate[] = [];
  let pieceStart = start;
  for (let i = start; i <= end; i++) {
    const c = token[i];
    if (i < end && c !== "," && c !== ";" && c !== "=" && c !== ":") continue;
    if (i > pieceStart) {
      const [s, e] = trim(token.slice(0, i), pieceStart);
      const piece = standalone(token.slice(s, e), mode, s);
      if (piece && piece.kind !== "ipv6") out.push({ ...piece, start: s, end: e });
    }
    pieceStart = i + 1;
  }
  return out;
}

/** `t` as a whole, standing at `at` in its token. */
function standalone(t: string, mode: ClassifyMode, at: number): { kind: IocKind; value: string } | null {
  if (t.length < 4) return null;
  const { includePrivate } = mode;
  if (CVE.test(t)) return { kind: "cve", value: t.toUpperCase() };
  if (HASH.test(t) && plausibleHash(t))
    return { kind: HASH_KIND[t.length as 32 | 40 | 64], value: t.toLowerCase() };
  if (ETHEREUM.test(t)) return { kind: "ethereum", value: t };
  if (BITCOIN_BASE58.test(t) && bitcoinBase58(t)) return { kind: "bitcoin", value: t };
  if (BITCOIN_BECH32.test(t) && bitcoinBech32(t)) return { kind: "bitcoin", value: t.toLowerCase() };
  if (MONERO.test(t)) return { kind: "monero", value: t };
  if (IPV4.test(t)) return ipv4(t, includePrivate);
  if (IPV6.test(t)) return ipv6(t, includePrivate);
  if (REGISTRY_KEY.test(t)) return { kind: "registry_key", value: t.replace(/\\$/, "") };
  if (WINDOWS_PATH.test(t) || UNIX_PATH.test(t)) return { kind: "path", value: t };
  const domain = mode.names ? null : bareDomain(t, includePrivate, defangedIn(mode, at, at + t.length));
  return domain ? { kind: "domain", value: domain } : null;
}

/**
 * "tiny[.]one/96czm3nk", "assltextile.com/Su34M.jpg": a host and a path without a scheme, as IOC
 * lists write URLs. The host is reported (no scheme is made up for a URL); a first segment that is
 * not a public host name or address ("and/or", "docs/readme.md") gives nothing.
 */
function hostOfPath(
  t: string,
  mode: ClassifyMode,
  at: number,
): { kind: IocKind; value: string; length: number } | null {
  const slash = t.indexOf("/");
  if (slash < 4 || mode.names) return null;
  const host = t.slice(0, slash).replace(/:[0-9]{1,5}$/, "");
  if (IPV4.test(host)) {
    const hit = ipv4(host, mode.includePrivate);
    return hit?.kind === "ipv4" ? { ...hit, length: host.length } : null;
  }
  const domain = bareDomain(host, mode.includePrivate, defangedIn(mode, at, at + host.length));
  return domain ? { kind: "domain", value: domain, length: host.length } : null;
}

function url(token: string, from: number, includePrivate: boolean): Candidate[] {
  const [start, end] = trim(token, from);
  const text = token.slice(start, end);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return [];
  }
  const host = parsed.hostname;
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  const hostHit = IPV4.test(bare)
    ? ipv4(bare, includePrivate)
    : bare.includes(":")
      ? ipv6(bare, includePrivate)
      : publicDomain(bare, includePrivate)
        ? { kind: "domain" as const, value: bare.toLowerCase() }
        : null;
  if (!hostHit) return [];
  const hostAt = token.toLowerCase().indexOf(bare.toLowerCase(), start);
  const value = `${parsed.protocol}//${text.slice(parsed.protocol.length + 2)}`;
  return [
    { kind: "url", value, start, end },
    { ...hostHit, start: hostAt < 0 ? start : hostAt, end: hostAt < 0 ? end : hostAt + bare.length },
  ];
}

const LOCAL_CHAR = /[a-z0-9!#$%&*+/=?^_~.-]/i;
const HOST_CHAR = /[a-z0-9.-]/i;

function email(token: string, at: number, includePrivate: boolean): Candidate[] {
  let start = at;
  while (start > 0 && LOCAL_CHAR.test(token[start - 1] ?? "")) start--;
  let end = at + 1;
  while (end < token.length && HOST_CHAR.test(token[end] ?? "")) end++;
  while (start < at && (token[start] === "." || token[start] === "+")) start++;
  while (end > at + 1 && (token[end - 1] === "." || token[end - 1] === "-")) end--;
  const local = token.slice(start, at);
  const domain = publicDomain(token.slice(at + 1, end), includePrivate);
  if (!domain || !EMAIL_LOCAL.test(local)) return [];
  return [{ kind: "email", value: `${local}@${domain}`, start, end }];
}
