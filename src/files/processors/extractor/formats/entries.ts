/** What every archive reader lists: entries, with their bytes once read. */
export interface ArchiveEntry {
  name: string;
  size: number;
  bytes?: Buffer;
  /** Listed as encrypted: `bytes` is set only once a password opened it. */
  encrypted?: boolean;
  /** The password that opened it. */
  password?: string;
  /** Why no password was tried on it (its key costs more than FILES_ARCHIVE_MAX_KEY_POWER allows). */
  notTried?: string;
}

export interface ArchiveListing {
  entries: ArchiveEntry[];
  truncated: string | null;
  /** Opens the encrypted entries it can (ZIP: with 7-Zip); returns why it stopped early, or null. */
  unlock?: () => Promise<string | null>;
}
