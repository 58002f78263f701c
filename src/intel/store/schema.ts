/**
 * Table types. The same columns on SQLite and PostgreSQL: timestamps are ISO 8601 UTC strings,
 * flags are 0/1 integers, attribute maps are JSON text — so one set of queries serves both.
 */
import type { Generated } from "kysely";

export interface SuperTypesTable {
  short_name: string;
  name: string;
}

export interface TypesTable {
  super_type: string;
  short_name: string;
  name: string;
  nf_icon: string;
}

export interface EntitiesTable {
  id: string;
  super_type: string;
  type: string;
  name: string;
  description: string;
  source_url: string;
  tlp: string;
  pap: string;
  attributes: string;
  created_at: string;
  updated_at: string;
}

export interface RelationsTable {
  id: string;
  name: string;
  description: string;
  obj_from: string;
  obj_to: string;
  attributes: string;
  created_at: string;
}

export interface EventsTable {
  id: string;
  type: string;
  name: string;
  first_seen: string;
  last_seen: string;
  count: number;
  description: string;
  attributes: string;
  involved_entity: string;
  vendor: string;
  created_at: string;
  updated_at: string;
}

export interface RequestsTable {
  id: string;
  super_type: string;
  type: string;
  value: string;
  /** SUPER/TYPE/value, the subject's identity. */
  subject_key: string;
  force: number;
  status: string;
  /** JSON: vendor id → {status, error, fetched_at}. */
  vendors: string;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface LookupsTable {
  subject_key: string;
  root_entity: string | null;
  /** The last request that finished (SUCCEEDED or FAILED). */
  request_id: string;
  status: string;
  finished_at: string;
}

export interface UsersTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  is_admin: number;
  is_active: number;
  created_at: string;
}

export interface TokensTable {
  id: Generated<number>;
  user_id: number;
  prefix: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked: number;
}

export interface VendorCredentialsTable {
  id: Generated<number>;
  vendor: string;
  fields: string;
  created_at: string;
  last_used_at: string | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface JobsTable {
  id: string;
  request_id: string;
  status: string;
  attempts: number;
  lease_until: string | null;
  worker: string | null;
  created_at: string;
}

export interface AdminSessionsTable {
  /** SHA-256 of the session id: a stolen database does not yield usable cookies. */
  id_hash: string;
  user_id: number;
  csrf: string;
  created_at: string;
  expires_at: string;
}

/** When a subject was last asked about (retention forgets subjects nobody asks about). */
export interface SubjectAsksTable {
  subject_key: string;
  asked_at: string;
}

/** Who changed users, keys and credentials, and when (see services/audit.ts). */
export interface AuditLogTable {
  id: Generated<number>;
  at: string;
  /** The admin's username at the time. */
  actor: string;
  /** "user.create", "credentials.add", … */
  action: string;
  target: string;
  /** Never a secret. */
  detail: string;
}

/** The last test of a credential set (one row per set, replaced by each test). */
export interface CredentialChecksTable {
  credential_id: number;
  checked_at: string;
  ok: number;
  /** What the vendor said, in words (never the credentials). */
  message: string;
}

/** One vendor's raw answer to one request: redacted, pretty-printed JSON, cut to a size limit. */
export interface RequestRawAnswersTable {
  request_id: string;
  vendor: string;
  body: string;
  /** Bytes of the whole redacted answer (more than `body` when it was cut). */
  size: number;
  truncated: number;
  created_at: string;
}

/** A threat name folded (case, accents, spaces and punctuation dropped) → the entity it stands for. */
export interface ThreatNamesTable {
  folded: string;
  super_type: string;
  type: string;
  name: string;
  created_at: string;
}

export interface Database {
  super_types: SuperTypesTable;
  types: TypesTable;
  entities: EntitiesTable;
  relations: RelationsTable;
  events: EventsTable;
  requests: RequestsTable;
  lookups: LookupsTable;
  users: UsersTable;
  tokens: TokensTable;
  vendor_credentials: VendorCredentialsTable;
  settings: SettingsTable;
  jobs: JobsTable;
  admin_sessions: AdminSessionsTable;
  subject_asks: SubjectAsksTable;
  audit_log: AuditLogTable;
  credential_checks: CredentialChecksTable;
  request_raw_answers: RequestRawAnswersTable;
  threat_names: ThreatNamesTable;
}
