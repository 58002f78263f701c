/**
 * Tables of the files analyses kept by intel: one row per upload (its marking, status and the files
 * service's whole answer as JSON), one row per node of its tree (what `?q=` searches), and one row
 * per indicator sent to intel for enrichment (the request that answers it), and the thumbnail of an
 * analysed image.
 */

export interface AnalysesTable {
  id: string;
  /** Whose analysis it is (users.id): a regular user's key sees only its own, unless shared. */
  user_id: number;
  /** The uploaded file's name, as sent (data: never markup). */
  name: string;
  sha256: string;
  sha1: string;
  md5: string;
  size: number;
  /** sha256 of the YARA rules text and whether a password was given: the cache key with sha256. */
  rules_key: string;
  /** pending, done or failed. */
  status: string;
  /** Why it failed (null otherwise). */
  error: string | null;
  tlp: string;
  pap: string;
  /** The files service's verdict level (malicious, suspicious, clean, incomplete); null until done. */
  verdict: string | null;
  /** JSON: the files service's `/analyzer/all` answer; null until done. */
  result: string | null;
  /** The analysis whose stored answer this one reused (the cache), or null. */
  cached_from: string | null;
  /** 0/1: an administrator shared it with every user. */
  shared: number;
  created_at: string;
  finished_at: string | null;
  /** A pending analysis whose runner has not finished by then was interrupted (see the sweep). */
  lease_until: string | null;
  /** Where the uploaded bytes are kept while pending, and after when INTEL_ANALYSIS_KEEP_FILES says so. */
  file_path: string | null;
}

export interface AnalysisNodesTable {
  analysis_id: string;
  /** `invoice.eml › invoice.zip › eicar.com`: the root's path is its name. */
  path: string;
  name: string;
  sha256: string | null;
  sha1: string | null;
  md5: string | null;
}

export interface AnalysisIndicatorsTable {
  analysis_id: string;
  super_type: string;
  type: string;
  value: string;
  /** JSON: the node paths the indicator was found at. */
  paths: string;
  /** The intel request answering it (null when it could not be asked: see `error`). */
  request_id: string | null;
  error: string | null;
  asked_at: string;
}

export interface AnalysisThumbnailsTable {
  analysis_id: string;
  /** A PNG from the files service, at most INTEL_ANALYSIS_THUMBNAIL_MAX_BYTES. */
  png: Buffer;
}
