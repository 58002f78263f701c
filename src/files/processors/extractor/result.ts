/** What every format extractor returns; the worker merges them into the analysis. */
export type Namespace = Record<string, unknown>;

export interface Extracted {
  text: string;
  title?: string | null;
  /** ISO 8601, from the document's own metadata. */
  created?: string | null;
  /** Namespaced metadata: {"pdf": {...}, "dc": {...}, "exif": {...}}. */
  extra: Record<string, Namespace>;
}

/** An extraction that knows which type it read the file as. */
export type Typed = Extracted & { type: string };

/** Extracts a nested file (archive entry, attachment, unpacked stream) one level deeper. */
export interface Recurse {
  (bytes: Buffer, name: string, depth: number): Promise<Typed>;
  /** Records a child that is not read (no password opened it, or over a limit): it stays in the tree. */
  skipped?(name: string, size: number | null, status: "encrypted" | "limit", reason: string): void;
  /** Records that not every child of the file being read was listed or read (a limit). */
  cut?(reason: string): void;
  /**
   * A child held inside the file being read without being a file of its own (a message attached
   * to an Outlook message): a node whose own children go through `recurse`, and whose text `own`
   * marks as its.
   */
  within?(name: string, type: string): { recurse: Recurse; own(text: string): string };
}

export interface ExtractLimits {
  maxChars: number;
  maxDepth: number;
  maxArchiveBytes: number;
  maxArchiveEntries: number;
  /** Passwords to try on encrypted archive entries, in order (the request's, then the defaults). */
  passwords?: string[];
  /** Tries (one password on one entry) per file at most. */
  maxPasswordTries?: number;
  /** Highest 7z key-derivation cost tried, as a power of two (FILES_ARCHIVE_MAX_KEY_POWER). */
  maxKeyPower?: number;
  /** Key-derivation rounds spent per file at most (FILES_ARCHIVE_MAX_KEY_ROUNDS). */
  maxKeyRounds?: number;
  /** The sandbox process's resident limit (FILES_EXTRACT_MEMORY_MB): a program it starts gets as much. */
  memoryMb?: number;
  /** Optional backends, set only when turned on. */
  ocr?: OcrOptions;
  tika?: TikaOptions;
}

export interface OcrOptions {
  /** tesseract languages, "eng" or "eng+fra". */
  languages: string;
  timeoutMs: number;
  /** PDF pages OCRed per file at most. */
  maxPages: number;
  /** Private folder for the page images (the upload's own temp folder). */
  tmpDir: string;
}

export interface TikaOptions {
  url: string;
  timeoutMs: number;
}

/** A file the format extractors do not understand, or one they failed to parse. */
export class ParseFailure extends Error {
  override name = "ParseFailure";
}

export function isoDate(value: unknown): string | null {
  if (value === undefined || value === null || value === "") return null;
  const d = value instanceof Date ? value : new Date(String(value));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** Collapses runs of spaces and blank lines, trims. Tabs stay: they separate spreadsheet cells. */
/**
 * Linear time: each run of whitespace is matched once, from its start, then rewritten (a pattern
 * like `[ ]*\t` tried at every space of a megabyte of spaces took minutes). Around a tab, spaces
 * go (tabs separate cells, so every tab stays); other runs of spaces become one; spaces and tabs
 * before a line break go, spaces after one too. A single space, the usual case, is not touched.
 */
export function normaliseWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \f\v\u00a0\t]{2,}|[\f\v\u00a0\t]/g, (run) =>
      run.includes("\t") ? run.replace(/[^\t]/g, "") : " ",
    )
    .replace(/(?<![ \t])[ \t]*\n[ \t\n]*/g, (run) => {
      const afterLast = run.slice(run.lastIndexOf("\n") + 1);
      return "\n".repeat(run.split("\n").length - 1) + afterLast.replace(/^ +/, "");
    })
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Metadata keys in snake_case, acronyms kept whole: PDFFormatVersion → pdf_format_version, XResolution → x_resolution. */
export function snakeCase(key: string): string {
  return key
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")
    .toLowerCase();
}
