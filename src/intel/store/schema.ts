/**
 * Table types. The same columns on SQLite and PostgreSQL: timestamps are ISO 8601 UTC strings,
 * flags are 0/1 integers, attribute maps are JSON text — so one set of queries serves both.
 */
import type { Generated } from "kysely";
import type {
  AnalysesTable,
  AnalysisIndicatorsTable,
  AnalysisNodesTable,
  AnalysisThumbnailsTable,
} from "./analysis-schema.ts";
import type { FeedCopiesTable, FeedEntriesTable } from "./feed-schema.ts";

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
  /** JSON: vendor id → {status, error, fetched_at} (what this request asked, and what it skipped). */
  vendors: string;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  // Optional on insert (the columns have defaults): rows written without them ask every usable vendor.
  /** JSON list of the vendor ids this request asks, fixed at creation; null: every usable vendor. */
  asked?: string | null;
  /** 1 for a refresh of stale vendors started behind a stored answer (nobody waits for it). */
  background?: number;
  tlp?: string | null;
  pap?: string | null;
}

export interface LookupsTable {
  subject_key: string;
  root_entity: string | null;
  /** The last request that finished (SUCCEEDED or FAILED). */
  request_id: string;
  status: string;
  finished_at: string;
  /** JSON: vendor id → its latest outcome, merged over the subject's requests; null before any merge. */
  sources?: string | null;
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
  /** This set's own quota (calls per minute window / per day), replacing the vendor's. */
  per_minute: number | null;
  per_day: number | null;
  /** Set when the vendor refused the key: out of rotation until an admin re-tests or edits it. */
  disabled_reason: string | null;
  failed_at: string | null;
}

/** One vendor call counted against a quota (credential_set 0: a keyless connector). */
export interface QuotaCallsTable {
  id: Generated<number>;
  vendor: string;
  credential_set: number;
  reserved_at: string;
  /** Counts in the per-minute window until then: pessimistic while in flight, finish + window after. */
  counts_until: string;
}

/** Per (vendor, credential set): the row reservations lock, and the vendor's Retry-After block. */
export interface QuotaStateTable {
  vendor: string;
  credential_set: number;
  blocked_until: string | null;
  blocked_reason: string | null;
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
  /** 0 interactive (one subject asked by a client), 1 bulk (a batch's subject): 0 is claimed first. */
  priority: Generated<number>;
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

/** One bulk ask: its subjects are batch_items; the rejected ones are kept as JSON `[{index, detail, code}]`. */
export interface BatchesTable {
  id: string;
  /** SHA-256 of the API key that asked (its webhook is called when the batch finishes). */
  token_hash: string;
  depth: number;
  /** Subjects sent, valid or not. */
  total: number;
  rejected: string;
  created_at: string;
  /** Set once, when no item's request is still active. */
  finished_at: string | null;
}

export interface BatchItemsTable {
  batch_id: string;
  /** The subject's position in the bulk ask. */
  idx: number;
  /** The request answering it: a new one, one it joined, or the stored lookup's. */
  request_id: string;
  super_type: string;
  type: string;
  value: string;
}

/** One URL per API key, called when a request or batch of that key finishes. */
export interface WebhooksTable {
  id: string;
  token_hash: string;
  url: string;
  /** Signs each body (HMAC-SHA256); shown once when made. */
  secret: string;
  created_at: string;
}

/** A webhook waiting for a request it asked about (single asks answered 201). */
export interface WebhookWatchesTable {
  request_id: string;
  webhook_id: string;
}

/** One notification to send, its attempts and outcome: the delivery log. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  /** "request.finished" or "batch.finished". */
  event: string;
  /** The request's or the batch's id. */
  target_id: string;
  body: string;
  /** pending, delivered or failed (attempts exhausted). */
  status: string;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
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
  quota_calls: QuotaCallsTable;
  quota_state: QuotaStateTable;
  settings: SettingsTable;
  jobs: JobsTable;
  admin_sessions: AdminSessionsTable;
  subject_asks: SubjectAsksTable;
  audit_log: AuditLogTable;
  batches: BatchesTable;
  batch_items: BatchItemsTable;
  webhooks: WebhooksTable;
  webhook_watches: WebhookWatchesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  credential_checks: CredentialChecksTable;
  request_raw_answers: RequestRawAnswersTable;
  threat_names: ThreatNamesTable;
  feed_copies: FeedCopiesTable;
  feed_entries: FeedEntriesTable;
  analyses: AnalysesTable;
  analysis_nodes: AnalysisNodesTable;
  analysis_indicators: AnalysisIndicatorsTable;
  analysis_thumbnails: AnalysisThumbnailsTable;
}
