/**
 * The connector contract: `fetch` talks to one vendor, `normalize` turns its raw answer
 * into a fragment of the knowledge graph. `normalize` is pure; storage is the only writer.
 * Entities are referred to by their natural key (super type, type, name), never by database id.
 */
import type { Credentials } from "../model/credentials.ts";
import type { Fragment, Subject, TypeRef } from "../model/graph.ts";
import type { FeedReader } from "./feed.ts";

// The graph model is every connector's vocabulary (`normalize` returns a Fragment): re-exported
// here so a connector imports its contract from one place. Code outside connectors/ imports model/.
export type { Credentials } from "../model/credentials.ts";
export {
  type EntityDraft,
  type EntityRef,
  type EventDraft,
  emptyFragment,
  type Fragment,
  type RelationDraft,
  rootRef,
  type Subject,
  type Tlp,
  type TypeRef,
} from "../model/graph.ts";

/**
 * Who learns the subject when a connector is asked: a third party (a public vendor: TLP/PAP gating
 * applies), an instance the user runs (their own MISP: never gated), or nobody (`local`: the
 * connector reads data Loupe holds on this machine, such as an offline database: never gated).
 */
export type Disclosure = "third_party" | "own_instance" | "local";

export interface VendorResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (VendorError "bad_response" if it is not JSON). */
  json(): unknown;
  text: string;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** JSON body (POST). */
  json?: unknown;
  /** Form body (POST, application/x-www-form-urlencoded). */
  form?: Record<string, string>;
  /** Statuses handed back to the connector instead of raising (404 is always handed back). */
  accept?: number[];
}

/** HTTP to the vendor's base URL only: paths are relative, retries and timeouts are built in. */
export interface VendorHttp {
  get(path: string, options?: RequestOptions): Promise<VendorResponse>;
  post(path: string, options?: RequestOptions): Promise<VendorResponse>;
}

export interface FetchContext {
  http: VendorHttp;
  signal: AbortSignal;
  /** The local copies of downloaded feeds (blocklists, indicator bundles); set by the framework. */
  feeds?: FeedReader;
  /** The base URL `http` is pinned to (a connector caching what it read there keys on it). */
  baseUrl?: string;
}

export interface Connector {
  /** Fixed once shipped (credentials and stored outcomes are keyed by it); also the folder name. The list is registry.ts. */
  id: string;
  vendor: string;
  description: string;
  supportedTypes: TypeRef[];
  /** Credential field names (Threatr's): "api_key", plus "url" for MISP. Empty = works without credentials. */
  credentialFields: string[];
  /**
   * The vendor's public API origin, e.g. "https://www.virustotal.com". INTEL_VENDOR_URL_<ID> replaces
   * it. A `local` connector never calls it: it names where its data comes from.
   */
  defaultBaseUrl: string;
  /** For vendors whose base URL is a credential (MISP's `url`): which field holds it. */
  baseUrlCredential?: string;
  /**
   * How long this vendor's stored answer stays fresh, in seconds (INTEL_VENDOR_TTL_<ID> replaces
   * it); unset = DEFAULT_TTL_SECONDS (24 h) of domain/freshness.ts.
   */
  ttlSeconds?: number;
  /** Who receives the subject when this connector is asked (decides TLP/PAP gating). */
  disclosure: Disclosure;
  /** Asks the vendor; returns its raw answer (anything JSON-like), or null when the vendor does not know the subject. */
  fetch(subject: Subject, credentials: Credentials, ctx: FetchContext): Promise<unknown>;
  /**
   * Pure and deterministic: raw answer → graph fragment (lives in `<id>/normalize.ts`). Inside an
   * answer it recognises, it skips what it does not understand and never throws. When the answer as
   * a whole is not the vendor's (not an object, or a field its format always carries is missing),
   * it throws VendorError "bad_response": the lookup records that vendor as failed instead of storing
   * a wrong fragment (hashlookup: a 200 record naming no file hash would call an unknown file known).
   * No other throw is allowed; test/intel/connectors/contract.test.ts holds every connector to this.
   */
  normalize(raw: unknown, subject: Subject): Fragment;
  /** One harmless call to check credentials (admin panel "test" button). */
  check?(credentials: Credentials, ctx: FetchContext): Promise<void>;
  /**
   * The vendor's free-tier limits per credential set (per key, or per address when keyless), with
   * where they were read; INTEL_VENDOR_QUOTA_<ID> and a set's own quota replace them. Absent: none.
   */
  quota?: QuotaPreset;
  /** Where a person makes an account and gets a key (the panel's credentials page); null when keyless or self-hosted. */
  keyPage: string | null;
  /** The vendor's own web pages about a value (the panel's "vendor's page" link): the first that fits is used; [] for none. */
  vendorPages: VendorPage[];
  /** How the panel reads this vendor's own verdict from the attributes it writes; null when it gives none. */
  verdict: VerdictRule | null;
  /** The data a `local` connector ships and reads, with its licence and date (the panel's Status page). */
  localData?(): LocalData[];
  /** Loads what `fetch` reads on this machine ahead of the first lookup (a worker calls it when it starts). */
  warm?(): Promise<void>;
}

/** One data set a connector keeps on this machine, as the Status page names and dates it. */
export interface LocalData {
  name: string;
  /** Where it comes from (an npm package, a URL). */
  origin: string;
  licence: string;
  /** Whom the licence asks to credit, and the page to link to (DB-IP's licence asks for a link). */
  attribution: string;
  link?: string;
  /** When the data was made (ISO 8601); undefined when unknown. */
  date: string | undefined;
}

/**
 * A vendor's web page about a value: `{value}` is replaced by the value (URL-encoded), `{type}` by
 * the type's short name in lower case (md5, ipv4…). With `types`, only for subjects of those types.
 */
export interface VendorPage {
  url: string;
  types?: string[];
}

/** What the panel's verdict card says of a value, worst last; "unknown" is what a vendor without a verdict says. */
export type Verdict = "clean" | "suspicious" | "malicious";

/**
 * One test on an attribute of the root entity (attributes are strings): `present` (set, not
 * empty), `=` (as text), `>=`, `>`, `<` (as numbers; a missing attribute fails), `lists` (a
 * comma-separated list holding `value`, as `source_vendor`).
 */
export interface AttributeTest {
  attribute: string;
  is: "present" | "=" | ">=" | ">" | "<" | "lists";
  value?: string | number;
}

/**
 * A vendor's own verdict, read by the panel from the result document (src/intel/admin/static/verdict.js).
 * Root attributes are merged across vendors, so a rule reads attributes only this vendor writes, or
 * checks `source_vendor` in `when` first. No verdict ("unknown") unless every `when` test holds;
 * then the first case that holds gives the verdict, else `otherwise` (or "unknown").
 */
export interface VerdictRule {
  when?: AttributeTest[];
  cases: Array<AttributeTest & { verdict: Verdict }>;
  otherwise?: Verdict;
  /** The card's detection line, `{attribute}` replaced by its value: "VirusTotal {vt_score}"; left out when unset. */
  detection?: string;
}

export interface QuotaPreset {
  perMinute?: number;
  perDay?: number;
  /** Where the figures come from (the vendor's documentation page). */
  source: string;
}

export type VendorErrorCode =
  | "invalid_credentials"
  | "rate_limited"
  | "timeout"
  | "bad_response"
  | "http_error"
  | "network_error"
  | "not_configured"
  | "quota_exhausted";

/** A vendor-side failure, stored on the request as that vendor's outcome. */
export class VendorError extends Error {
  readonly code: VendorErrorCode;
  readonly status: number | undefined;
  constructor(code: VendorErrorCode, message: string, status?: number) {
    super(message);
    this.name = "VendorError";
    this.code = code;
    this.status = status;
  }
}
