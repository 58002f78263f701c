/**
 * Every regular expression the indicator scan runs. Each has bounded quantifiers or a single
 * unbounded class with nothing after it, so it cannot backtrack past a constant per character;
 * a test proves each with a ReDoS checker. Anchored ones run on one token at a time.
 */

/** A token: a run of characters that can belong to an indicator. One class, nothing after: linear. */
export const TOKEN = /[^\s"'<>`{}|]+/g;

/** International phone numbers only (a leading +, not after a word or another +: checked in code): national formats are too ambiguous. */
export const PHONE = /\+[1-9][0-9 ().-]{6,20}[0-9]/g;

export const URL_SCHEME = /(?:https?|ftps?|sftp|wss?):\/\//i;

export const IPV4 = /^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(?:\/[0-9]{1,2})?(?::[0-9]{1,5})?$/;
export const IPV6 = /^[0-9a-f]{0,4}:[0-9a-f:.]{2,42}(?:\/[0-9]{1,3})?$/i;

/** Characters of a host name; its labels are checked one by one (LABEL) and by the public suffix list. */
export const HOST = /^[a-z0-9._-]{4,253}$/i;
export const LABEL = /^[a-z0-9_][a-z0-9_-]{0,62}$/i;

export const EMAIL_LOCAL = /^[a-z0-9!#$%&*+/=?^_~-]{1,64}(?:\.[a-z0-9!#$%&*+/=?^_~-]{1,64}){0,10}$/i;

export const HASH = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$/i;

export const CVE = /^cve-[12][0-9]{3}-[0-9]{4,7}$/i;

export const BITCOIN_BASE58 = /^[13][1-9A-HJ-NP-Za-km-z]{25,34}$/;
export const BITCOIN_BECH32 = /^(?:bc1[02-9ac-hj-np-z]{11,71}|BC1[02-9AC-HJ-NP-Z]{11,71})$/;
export const ETHEREUM = /^0x[0-9a-fA-F]{40}$/;
export const MONERO = /^[48][1-9A-HJ-NP-Za-km-z]{94}(?:[1-9A-HJ-NP-Za-km-z]{11})?$/;

/** Windows paths: a drive, an environment variable or a UNC share, then at least one segment (single spaces allowed: tokens are joined). */
export const WINDOWS_PATH =
  /^(?:[a-z]:|%[a-z_][a-z0-9_()]{0,39}%|\\\\[a-z0-9_.$-]{1,63})(?:\\[^\\/:*?"<>|\t\n\r]{1,255}){1,64}\\?$/i;

/** Unix paths under a well-known root only: "and/or" or a URL path must not count. */
export const UNIX_PATH =
  /^\/(?:etc|tmp|var|usr|bin|sbin|opt|home|root|dev|proc|sys|lib|lib64|boot|mnt|srv|run|Library|Users|System|Applications|private|Volumes|data|sdcard|system|storage)(?:\/[^/\s]{1,255}){1,64}\/?$/;

export const REGISTRY_KEY =
  /^(?:HKEY_LOCAL_MACHINE|HKEY_CURRENT_USER|HKEY_CLASSES_ROOT|HKEY_USERS|HKEY_CURRENT_CONFIG|HKLM|HKCU|HKCR|HKU|HKCC)(?:\\[^\\\t\n\r]{1,255}){1,64}\\?$/i;

/**
 * Words that make a dotted quad a version, not an address ("version 1.2.3.4", "v1.2.3.4", "build
 * 10.0.19041.1", "GPSVersionID: 2.3.0.0" — a field name ending in Version or VersionID, then ":" or "=").
 */
export const VERSION_BEFORE =
  /(?:\bv|\bver\.?|version(?:id)?|\bbuild|\brelease|\bupdate|\bfirmware)[\s:=]{0,4}$/i;

/** The last key of a metadata path that holds a version ("extra.gps.gps_version_id", "FileVersion"). */
export const VERSION_KEY = /version[a-z_]{0,8}$/i;

/** A line that opens a URL of its own (ends a wrapped token, see tokens.ts). */
export const URL_START = /^[a-z][a-z0-9+.-]{0,9}:\/\//i;

/** All of them, for the ReDoS test. */
export const ALL_PATTERNS: Record<string, RegExp> = {
  TOKEN,
  PHONE,
  URL_SCHEME,
  IPV4,
  IPV6,
  HOST,
  LABEL,
  EMAIL_LOCAL,
  HASH,
  CVE,
  BITCOIN_BASE58,
  BITCOIN_BECH32,
  ETHEREUM,
  MONERO,
  WINDOWS_PATH,
  UNIX_PATH,
  REGISTRY_KEY,
  VERSION_BEFORE,
  VERSION_KEY,
  URL_START,
};
