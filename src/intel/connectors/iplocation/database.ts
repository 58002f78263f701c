/**
 * The offline IP database of the `iplocation` connector: ip-location-db's ASN ranges (CSV, read once
 * into typed arrays searched by bisection: about 500,000 ranges in a few tens of MB) and its country
 * MaxMind DB (read by `maxmind`). Loaded on first use, once per process; the npm packages are the data.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import ipaddr from "ipaddr.js";
import maxmind, { type Reader, type Response } from "maxmind";

const requireFrom = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(requireFrom.resolve(`${name}/package.json`));

export const ASN_PACKAGE = "@ip-location-db/asn";
export const COUNTRY_PACKAGE = "@ip-location-db/geo-whois-asn-country-mmdb";

/** What the database says of one address. */
export interface IpFacts {
  asn?: number;
  organisation?: string;
  /** The ASN range holding the address, "first - last". */
  range?: string;
  /** ISO 3166-1 alpha-2. */
  country?: string;
}

/** Sorted, non-overlapping ranges (their first and last address) with their ASN. */
interface RangeTable<K> {
  key(i: number): K;
  end(i: number): K;
  length: number;
  asns: Uint32Array;
}

interface Database {
  v4: RangeTable<number>;
  v6: RangeTable<bigint>;
  /** ASN → organisation. */
  orgs: Map<number, string>;
  /** ip-location-db's country records are `{country_code}`, not MaxMind's own shape. */
  countries: Reader<Response>;
}

/** One line of an ip-location-db numeric CSV, `start,end,asn,organisation`, as byte offsets into the file. */
interface Line {
  bytes: Buffer;
  start: [number, number];
  end: [number, number];
  asn: number;
  /** The organisation's bytes, quotes included when it is quoted. */
  org: [number, number];
}

/** A run of ASCII digits as a number (the start and end of IPv4 ranges, ASNs). */
function digits(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + (bytes[i]! - 48);
  return n;
}

/**
 * Each line of an ip-location-db numeric CSV, read from the file's bytes: three plain numbers,
 * then the organisation, quoted (RFC 4180) when it holds a comma or a quote. The bytes are read in
 * place because a general CSV parser took 13 s and 250 MB at peak for these 30 MB on this machine.
 */
function eachLine(file: string, visit: (line: Line) => void): void {
  const bytes = readFileSync(file);
  for (let at = 0; at < bytes.length; ) {
    let eol = bytes.indexOf(10, at);
    if (eol < 0) eol = bytes.length;
    const c1 = bytes.indexOf(44, at);
    const c2 = c1 < 0 ? -1 : bytes.indexOf(44, c1 + 1);
    const c3 = c2 < 0 ? -1 : bytes.indexOf(44, c2 + 1);
    if (c3 > 0 && c3 < eol) {
      const last = bytes[eol - 1] === 13 ? eol - 1 : eol;
      visit({
        bytes,
        start: [at, c1],
        end: [c1 + 1, c2],
        asn: digits(bytes, c2 + 1, c3),
        org: [c3 + 1, last],
      });
    }
    at = eol + 1;
  }
}

/** The organisation's text, unquoted (`"Cloudflare, Inc."`, `""` inside a quoted field is one quote). */
function orgText({ bytes, org: [from, to] }: Line): string {
  const raw = bytes.toString("utf8", from, to);
  return raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2
    ? raw.slice(1, -1).replaceAll('""', '"')
    : raw;
}

/** The organisation of each ASN, read the first time the ASN is met (ip-location-db names it per ASN). */
function noteOrg(orgs: Map<number, string>, line: Line): void {
  if (!orgs.has(line.asn)) orgs.set(line.asn, orgText(line));
}

function readV4(file: string, orgs: Map<number, string>): RangeTable<number> {
  let n = 0;
  let [s, e, a] = [new Uint32Array(1 << 19), new Uint32Array(1 << 19), new Uint32Array(1 << 19)];
  eachLine(file, (line) => {
    if (n === s.length) [s, e, a] = [grow(s), grow(e), grow(a)];
    s[n] = digits(line.bytes, ...line.start);
    e[n] = digits(line.bytes, ...line.end);
    a[n++] = line.asn;
    noteOrg(orgs, line);
  });
  [s, e, a] = [s.slice(0, n), e.slice(0, n), a.slice(0, n)];
  return { key: (i) => s[i]!, end: (i) => e[i]!, length: n, asns: a };
}

function grow(table: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(table.length * 2);
  bigger.set(table);
  return bigger;
}

const LOW64 = (1n << 64n) - 1n;

function readV6(file: string, orgs: Map<number, string>): RangeTable<bigint> {
  const bounds: bigint[] = [];
  const asns: number[] = [];
  eachLine(file, (line) => {
    bounds.push(
      BigInt(line.bytes.toString("latin1", ...line.start)),
      BigInt(line.bytes.toString("latin1", ...line.end)),
    );
    asns.push(line.asn);
    noteOrg(orgs, line);
  });
  // 128-bit bounds as two 64-bit halves each: compact, and BigInt only while comparing.
  const n = asns.length;
  const halves = (offset: number, high: boolean) =>
    BigUint64Array.from({ length: n }, (_, i) => {
      const v = bounds[2 * i + offset]!;
      return high ? v >> 64n : v & LOW64;
    });
  const [sh, sl, eh, el] = [halves(0, true), halves(0, false), halves(1, true), halves(1, false)];
  return {
    key: (i) => (sh[i]! << 64n) | sl[i]!,
    end: (i) => (eh[i]! << 64n) | el[i]!,
    length: n,
    asns: Uint32Array.from(asns),
  };
}

/** The last range starting at or before `value`, if `value` is inside it. */
function find<K extends number | bigint>(table: RangeTable<K>, value: K): number | undefined {
  let lo = 0;
  let hi = table.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (table.key(mid) <= value) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && value <= table.end(found) ? found : undefined;
}

async function load(): Promise<Database> {
  const orgs = new Map<number, string>();
  const dir = packageDir(ASN_PACKAGE);
  const v4 = readV4(path.join(dir, "asn-ipv4-num.csv"), orgs);
  const v6 = readV6(path.join(dir, "asn-ipv6-num.csv"), orgs);
  const countries = await maxmind.open(path.join(packageDir(COUNTRY_PACKAGE), "geo-whois-asn-country.mmdb"));
  return { v4, v6, orgs, countries };
}

let database: Promise<Database> | undefined;

/** The database, read on the first call; a failed read is tried again on the next. */
export function openDatabase(): Promise<Database> {
  database ??= load().catch((err) => {
    database = undefined;
    throw err;
  });
  return database;
}

const bigFromBytes = (bytes: number[]) => bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n);
const v6Text = (n: bigint) =>
  ipaddr
    .fromByteArray(Array.from({ length: 16 }, (_, i) => Number((n >> BigInt(8 * (15 - i))) & 0xffn)))
    .toString();
const v4Text = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

/** The ASN range of a parsed address: its index and bounds as text. */
function asnRange(db: Database, ip: ipaddr.IPv4 | ipaddr.IPv6) {
  if (ip.kind() === "ipv4") {
    const n = ip.toByteArray().reduce((acc, b) => acc * 256 + b, 0);
    const i = find(db.v4, n);
    return i === undefined
      ? undefined
      : { i, table: db.v4, range: `${v4Text(db.v4.key(i))} - ${v4Text(db.v4.end(i))}` };
  }
  const i = find(db.v6, bigFromBytes(ip.toByteArray()));
  return i === undefined
    ? undefined
    : { i, table: db.v6, range: `${v6Text(db.v6.key(i))} - ${v6Text(db.v6.end(i))}` };
}

/** What the database knows of an address (nothing for a private, reserved or malformed one). */
export function lookupIn(db: Database, address: string): IpFacts {
  if (!ipaddr.isValid(address)) return {};
  const ip = ipaddr.parse(address);
  if (ip.range() !== "unicast") return {};
  const out: IpFacts = {};
  const hit = asnRange(db, ip);
  if (hit) {
    out.asn = hit.table.asns[hit.i]!;
    out.organisation = db.orgs.get(out.asn) || undefined;
    out.range = hit.range;
  }
  const record = db.countries.get(ip.toString()) as { country_code?: unknown } | null;
  const country = typeof record?.country_code === "string" ? record.country_code : undefined;
  if (country) out.country = country;
  return out;
}

/** The date of a package's data: ip-location-db versions end with it (`2.3.2026061719` → 2026-06-17T19:00Z). */
export function dataDate(name: string): string | undefined {
  const { version } = JSON.parse(readFileSync(path.join(packageDir(name), "package.json"), "utf8")) as {
    version?: string;
  };
  const m = /\.(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(version ?? "");
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:00:00Z` : undefined;
}
