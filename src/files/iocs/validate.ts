/**
 * Whether a candidate is a real, public indicator: domains against the public suffix list (tldts),
 * addresses by their range (ipaddr.js), bitcoin addresses by their checksum.
 */
import { createHash } from "node:crypto";
import ipaddr from "ipaddr.js";
import { parse } from "tldts";
import { HOST, LABEL } from "./patterns.ts";

/** Names kept for documentation (RFC 2606 and RFC 6761): never an indicator unless private ones are asked for. */
const RESERVED_DOMAINS = new Set(["example.com", "example.net", "example.org"]);

/**
 * Top-level domains that are also common file extensions or code words: "setup.py", "invoice.zip",
 * "readme.md", "this.name". A bare name under them is not taken as a domain (in a URL or an
 * e-mail address it still is).
 */
const EXTENSION_TLDS = new Set(
  "py pl sh rs java so zip mov md one app name property data page run map new mk prof cab ax art".split(" "),
);

/** A registrable host name under an ICANN suffix, lower-cased, or null. */
export function publicDomain(candidate: string, includePrivate: boolean): string | null {
  const host = candidate.replace(/\.$/, "");
  if (!HOST.test(host)) return null;
  const labels = host.split(".");
  if (labels.length < 2 || labels.some((l) => !LABEL.test(l) || l.endsWith("-"))) return null;
  const lower = host.toLowerCase();
  const info = parse(lower, { allowPrivateDomains: false });
  if (info.isIp || !info.isIcann || !info.domain) return null;
  if (!includePrivate && RESERVED_DOMAINS.has(info.domain)) return null;
  return lower;
}

/**
 * Extra rules for a domain standing alone in text (not inside a URL or an e-mail address). A
 * defanged name ("tinyurl[.]one", "ns.suechiLton[.]com") skips them: the writer marked it a host.
 */
export function bareDomain(candidate: string, includePrivate: boolean, defanged = false): string | null {
  const domain = publicDomain(candidate, includePrivate);
  if (!domain || defanged) return domain;
  const labels = domain.split(".");
  if (labels.length === 2 && EXTENSION_TLDS.has(labels[1] ?? "")) return null;
  // "System.Net", "Console.Log": code, not a host. Text writes hosts in one case, or capitalised.
  const rest = candidate.slice(1);
  if (rest !== rest.toLowerCase() && candidate !== candidate.toUpperCase()) return null;
  return domain;
}

export type IpCheck = { kind: "ipv4" | "ipv6" | "cidr"; value: string } | null;

/** "8.8.8.8", "8.8.8.8:53", "203.0.113.0/24": a public IPv4 address or network. */
export function ipv4(candidate: string, includePrivate: boolean): IpCheck {
  const [addressPart = "", prefix] = candidate.replace(/:\d+$/, "").split("/");
  const octets = addressPart.split(".");
  if (octets.some((o) => o.length > 1 && o.startsWith("0"))) return null;
  if (octets.some((o) => Number(o) > 255)) return null;
  const address = ipaddr.IPv4.parse(addressPart);
  if (!includePrivate && address.range() !== "unicast") return null;
  if (prefix === undefined) return { kind: "ipv4", value: address.toString() };
  const bits = Number(prefix);
  if (bits > 32 || (prefix.length > 1 && prefix.startsWith("0"))) return null;
  return { kind: "cidr", value: `${address.toString()}/${bits}` };
}

/** A public (global unicast, 2000::/3) IPv6 address or network, in its canonical short form. */
export function ipv6(candidate: string, includePrivate: boolean): IpCheck {
  const [addressPart = "", prefix] = candidate.split("/");
  if (!ipaddr.IPv6.isValid(addressPart) || addressPart.split(":").length < 3) return null;
  const address = ipaddr.IPv6.parse(addressPart);
  const first = address.parts[0] ?? 0;
  if (!includePrivate && (address.range() !== "unicast" || first < 0x2000 || first > 0x3fff)) return null;
  if (prefix === undefined) return { kind: "ipv6", value: address.toString() };
  const bits = Number(prefix);
  if (bits > 128) return null;
  return { kind: "cidr", value: `${address.toString()}/${bits}` };
}

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Legacy (P2PKH "1…", P2SH "3…") address: 25 bytes whose last 4 are a double SHA-256 checksum. */
export function bitcoinBase58(candidate: string): boolean {
  let n = 0n;
  for (const c of candidate) n = n * 58n + BigInt(BASE58.indexOf(c));
  const hex = n.toString(16).padStart(50, "0");
  if (hex.length !== 50) return false;
  const bytes = Buffer.from(hex, "hex");
  const payload = bytes.subarray(0, 21);
  if (payload[0] !== 0x00 && payload[0] !== 0x05) return false;
  const once = createHash("sha256").update(payload).digest();
  const twice = createHash("sha256").update(once).digest();
  return twice.subarray(0, 4).equals(bytes.subarray(21));
}

const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

/** Segwit address (BIP 173 bech32 for version 0, BIP 350 bech32m after). */
export function bitcoinBech32(candidate: string): boolean {
  const lower = candidate.toLowerCase();
  const data = [...lower.slice(3)].map((c) => BECH32.indexOf(c));
  const values = [3, 3, 0, 2, 3, ...data]; // "bc" expanded: high bits, 0, low bits.
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATORS[i] ?? 0;
  }
  const version = data[0] ?? -1;
  return (version === 0 && chk === 1) || (version > 0 && version <= 16 && chk === 0x2bc830a3);
}

/** Hex digests: at least one letter and one digit, or it is a number or a run of a letter. */
export function plausibleHash(candidate: string): boolean {
  return /[0-9]/.test(candidate) && /[a-f]/i.test(candidate);
}

/** "+33 1 23 45 67 89": 8 to 15 digits (E.164), separators single, parentheses balanced. */
export function phone(candidate: string): string | null {
  const digits = candidate.replace(/[^0-9]/g, "");
  if (digits.length < 8 || digits.length > 15) return null;
  if (/[ .-]{2}|\(\)|[.-][ ]|[ ][.-]/.test(candidate)) return null;
  const open = candidate.split("(").length;
  if (open !== candidate.split(")").length || open > 2) return null;
  return `+${digits}`;
}
