/**
 * Observables as STIX Cyber-observable Objects: the type and properties of each observable type,
 * its deterministic id (UUIDv5 of the ID Contributing Properties in the STIX namespace, STIX 2.1
 * §2.9) and the STIX pattern that matches it (for indicators).
 */
import type { ExportEntity, FileHashType } from "./graph.ts";
import { canonicalJson, uuidV5 } from "./ids.ts";

/** The namespace STIX 2.1 fixes for SCO ids. */
const SCO_NAMESPACE = "00abedb4-aa42-466c-9c01-fed23315a9b7";

export interface Sco {
  type: string;
  /** The object's own properties (value, hashes, number…). */
  props: Record<string, unknown>;
  /** Its ID Contributing Properties. */
  idProps: Record<string, unknown>;
  /** A STIX pattern comparison that matches it. */
  pattern: string;
}

export const STIX_HASH_NAMES: Record<FileHashType, string> = { MD5: "MD5", SHA1: "SHA-1", SHA256: "SHA-256" };

/** A string literal of the STIX patterning language. */
export const patternString = (v: string) => `'${v.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

/** The hash key as a pattern path step: `hashes.MD5`, `hashes.'SHA-256'`. */
const hashPath = (name: string) => (/^[A-Za-z0-9_]+$/.test(name) ? name : patternString(name));

export const scoId = (sco: Sco) => `${sco.type}--${uuidV5(SCO_NAMESPACE, canonicalJson(sco.idProps))}`;

const HASH_PREFERENCE = ["MD5", "SHA-1", "SHA-256"];

/** A file named by its hashes (in HASH_PREFERENCE's order); its id comes from the first. */
export function fileSco(named: Record<string, string>): Sco {
  const hashes = Object.fromEntries(HASH_PREFERENCE.filter((n) => named[n]).map((n) => [n, named[n]!]));
  const preferred = Object.keys(hashes)[0]!;
  const pattern = Object.entries(hashes)
    .map(([name, value]) => `file:hashes.${hashPath(name)} = ${patternString(value)}`)
    .join(" OR ");
  return {
    type: "file",
    props: { hashes },
    idProps: { hashes: { [preferred]: hashes[preferred] } },
    pattern,
  };
}

const valued = (type: string, value: string): Sco => ({
  type,
  props: { value },
  idProps: { value },
  pattern: `${type}:value = ${patternString(value)}`,
});

function macAddress(value: string): Sco | undefined {
  const hex = value.toLowerCase().replace(/[^0-9a-f]/g, "");
  if (hex.length !== 12) return undefined;
  return valued("mac-addr", hex.match(/../g)!.join(":"));
}

function autonomousSystem(value: string): Sco | undefined {
  const digits = /^(?:AS)?\s*(\d{1,10})$/i.exec(value.trim())?.[1];
  const number = digits === undefined ? Number.NaN : Number(digits);
  if (!Number.isSafeInteger(number) || number > 4294967295) return undefined;
  return {
    type: "autonomous-system",
    props: { number },
    idProps: { number },
    pattern: `autonomous-system:number = ${number}`,
  };
}

const FINGERPRINT_HASHES: Record<number, string> = { 32: "MD5", 40: "SHA-1", 64: "SHA-256" };

function certificate(value: string): Sco | undefined {
  const hex = value.toLowerCase().replace(/[^0-9a-f]/g, "");
  const name = FINGERPRINT_HASHES[hex.length];
  if (!name) return undefined;
  const hashes = { [name]: hex };
  return {
    type: "x509-certificate",
    props: { hashes },
    idProps: { hashes },
    pattern: `x509-certificate:hashes.${hashPath(name)} = ${patternString(hex)}`,
  };
}

const OBSERVABLES: Record<string, (value: string) => Sco | undefined> = {
  IPV4: (v) => valued("ipv4-addr", v),
  IPV6: (v) => valued("ipv6-addr", v),
  CIDR: (v) => valued(v.includes(":") ? "ipv6-addr" : "ipv4-addr", v),
  DOMAIN: (v) => valued("domain-name", v),
  HOSTNAME: (v) => valued("domain-name", v),
  // STIX's url is an absolute URL; vendors' "URLs" are not always one.
  URL: (v) => (URL.canParse(v) ? valued("url", v) : undefined),
  EMAIL: (v) => valued("email-addr", v),
  MAC: macAddress,
  ASN: autonomousSystem,
  SSL_CERT_F: certificate,
  MUTEX: (v) => ({
    type: "mutex",
    props: { name: v },
    idProps: { name: v },
    pattern: `mutex:name = ${patternString(v)}`,
  }),
};

/** The SCO of an observable other than a file hash, or undefined when STIX has no object for it. */
export function observableSco(entity: ExportEntity): Sco | undefined {
  if (entity.super_type.short_name !== "OBSERVABLE") return undefined;
  return OBSERVABLES[entity.type.short_name]?.(entity.name);
}
