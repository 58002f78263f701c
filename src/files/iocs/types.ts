/**
 * What an indicator is: a value, the intel taxonomy type it is sent as (super type + type short
 * names of src/intel/model/taxonomy.json), our finer `kind`, and where it was found.
 */

/** Finer than the taxonomy: registry keys and wallet addresses share OBSERVABLE/GENERIC there. */
export const IOC_KINDS = [
  "url",
  "domain",
  "ipv4",
  "ipv6",
  "cidr",
  "email",
  "md5",
  "sha1",
  "sha256",
  "cve",
  "bitcoin",
  "ethereum",
  "monero",
  "phone",
  "path",
  "registry_key",
] as const;
export type IocKind = (typeof IOC_KINDS)[number];

/** The intel type of each kind (all are OBSERVABLE). */
export const TAXONOMY_TYPE: Record<IocKind, string> = {
  url: "URL",
  domain: "DOMAIN",
  ipv4: "IPV4",
  ipv6: "IPV6",
  cidr: "CIDR",
  email: "EMAIL",
  md5: "MD5",
  sha1: "SHA1",
  sha256: "SHA256",
  cve: "CVE",
  bitcoin: "GENERIC",
  ethereum: "GENERIC",
  monero: "GENERIC",
  phone: "PHONE",
  path: "PATH",
  registry_key: "GENERIC",
};

/** A piece of text and where it comes from: `part` names it ("content", "title", "extra.email.from"). */
export interface TextPart {
  part: string;
  text: string;
  /** Page of a document or entry of an archive, when the text is known to come from one. */
  page?: string | null;
  /** Where `text` starts in the part, when a part is handed over in pieces (default 0). */
  offset?: number;
  /**
   * The text is made of file names or paths (archive members, attachments, a node's path), not prose:
   * a name standing alone ("eicar.com", "readme.com") is not taken for a domain; URLs and e-mail
   * addresses in it still are (default false).
   */
  names?: boolean;
}

export interface IocLocation {
  part: string;
  page: string | null;
  /** Offset of the first character, in UTF-16 code units of the part's original (not refanged) text. */
  offset: number;
}

export interface Indicator {
  super_type: "OBSERVABLE";
  type: string;
  kind: IocKind;
  /** Refanged and normalised (domains, e-mail domains and hashes in lower case, CVE ids in upper case). */
  value: string;
  /** True when the text had it defanged (hxxp, [.], [at]). */
  defanged: boolean;
  /** Times it was seen; `locations` keeps the first ones only. */
  occurrences: number;
  locations: IocLocation[];
}

export interface IocLimits {
  /** Characters scanned over all parts; the rest is skipped and `truncated` says so. */
  maxChars: number;
  /** Distinct indicators returned at most. */
  maxIndicators: number;
  /** Longer runs of non-space characters are not indicators (and are not scanned). */
  maxTokenChars: number;
  /** Locations kept per indicator. */
  maxLocations: number;
}

export interface IocOptions extends IocLimits {
  /** Keep private, loopback, reserved and documentation addresses and domains (default false). */
  includePrivate?: boolean;
}

export interface IocResult {
  indicators: Indicator[];
  /** Set when a limit cut the scan: which one. */
  truncated: "max_chars" | "max_indicators" | null;
  scanned_chars: number;
}
