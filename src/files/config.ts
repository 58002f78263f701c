/**
 * Every setting of the files service, each a declared `Setting` with its default, check and
 * description: docs/configuration.md is checked against this table, so a limit cannot go undocumented.
 */
import os from "node:os";
import path from "node:path";
import { withDerivedDefaults } from "../common/config.ts";
import { flag, integer, list, oneOf, optionalText, readSettings, text } from "../common/settings.ts";

/** Settings of the files service. Every limit is here, with its default; docs/configuration.md lists them. */
export const filesSettings = {
  port: integer("FILES_PORT", 8000, "Port of the files service.", { min: 0, max: 65535 }),
  maxFileSize: integer(
    ["FILES_MAX_FILE_SIZE", "MAX_FILE_SIZE"],
    250_000_000,
    "Largest accepted upload, in bytes (400 past it).",
    {
      min: 1,
    },
  ),
  maxFieldSize: integer(
    ["FILES_MAX_FORM_FIELD_SIZE", "MAX_FORM_FIELD_SIZE"],
    10_000_000,
    "Largest accepted text form field (YARA rules), in bytes.",
    { min: 1 },
  ),
  uploadMemoryMax: integer(
    ["FILES_UPLOAD_MEMORY_MAX", "UPLOAD_MEMORY_MAX"],
    65_536,
    "Uploads of at most this many bytes (by Content-Length) are kept in memory instead of a temp file, for the routes that work on bytes (rulematch and yara, thumbnails); 0 turns it off. Past ≈ 30 KB an image costs more as bytes over IPC than as a temp file (docs/benchmarks.md).",
    { min: 0 },
  ),
  tmpDir: {
    ...text(
      "FILES_TMP_DIR",
      path.join(os.tmpdir(), "loupe-files"),
      "Folder for upload temp files (mode 0700).",
    ),
    documentedDefault: "<system temp>/loupe-files-<hash of LOUPE_DATA_DIR>",
  },
  maxImagePixels: integer(
    ["FILES_MAX_IMAGE_PIXELS", "MAX_IMAGE_PIXELS"],
    100_000_000,
    "Largest image the thumbnail converter decodes, in pixels (checked from the header, before decoding).",
    { min: 1 },
  ),
  maxThumbnailSide: integer(
    ["FILES_MAX_THUMBNAIL_SIDE", "MAX_THUMBNAIL_SIDE"],
    10_000,
    "Largest thumbnail width or height, in pixels.",
    {
      min: 1,
    },
  ),
  maxThumbnailPixels: integer(
    ["FILES_MAX_THUMBNAIL_PIXELS", "MAX_THUMBNAIL_PIXELS"],
    16_777_216,
    "Largest thumbnail (the output), in pixels: a tiny image asked for a huge box is refused.",
    { min: 1 },
  ),
  thumbnailTimeoutMs: integer(
    ["FILES_THUMBNAIL_TIMEOUT_MS", "THUMBNAIL_TIMEOUT_MS"],
    30_000,
    "Time limit of one thumbnail (decode, resize, encode), in ms; libvips work is stopped in whole seconds.",
    { min: 1 },
  ),
  thumbnailConcurrency: integer(
    ["FILES_THUMBNAIL_CONCURRENCY", "THUMBNAIL_CONCURRENCY"],
    os.availableParallelism(),
    "Thumbnails decoded at once, each in a child process; more requests wait in line (bounds memory under bursts).",
    { min: 1, max: 256, documentedDefault: "number of CPU cores" },
  ),
  yaraWorkers: integer(
    ["FILES_YARA_WORKERS", "YARA_WORKERS"],
    os.availableParallelism(),
    "Worker threads running YARA scans.",
    {
      min: 1,
      max: 256,
      documentedDefault: "number of CPU cores",
    },
  ),
  workerIdleMs: integer(
    ["FILES_WORKER_IDLE_MS", "WORKER_IDLE_MS"],
    60_000,
    "How long an idle YARA worker thread, native scan process, extraction process or thumbnail process lives before it is stopped (one of each pool is kept warm).",
    { min: 100 },
  ),
  // At least 1: the rule set a scan is about to use is itself an entry of the cache.
  ruleMaxMatchesPerString: integer(
    ["FILES_RULE_MAX_MATCHES_PER_STRING", "RULE_MAX_MATCHES_PER_STRING"],
    1000,
    "Instances reported per YARA string (the scan stops counting past it).",
    { min: 1 },
  ),
  rulePlaintextMax: integer(
    ["FILES_RULE_PLAINTEXT_MAX", "RULE_PLAINTEXT_MAX"],
    256,
    "Bytes of each match shown in `plaintext`.",
    {
      min: 0,
      max: 65_536,
    },
  ),
  rulesMaxBytes: integer(
    ["FILES_RULES_MAX_BYTES", "RULES_MAX_BYTES"],
    1_000_000,
    "Largest YARA source accepted, in bytes (400 past it).",
    {
      min: 1,
    },
  ),
  rulesMaxDepth: integer(
    ["FILES_RULES_MAX_DEPTH", "RULES_MAX_DEPTH"],
    64,
    "Deepest nesting in YARA rules: brackets plus chained unary operators, and groups in a pattern.",
    { min: 1 },
  ),
  rulesMaxRules: integer(
    ["FILES_RULES_MAX_RULES", "RULES_MAX_RULES"],
    10_000,
    "Rules in one YARA source at most.",
    { min: 1 },
  ),
  rulesMaxStrings: integer(
    ["FILES_RULES_MAX_STRINGS", "RULES_MAX_STRINGS"],
    50_000,
    "Strings (`$name = …`) in one YARA source at most.",
    {
      min: 1,
    },
  ),
  rulesMaxPatternBytes: integer(
    ["FILES_RULES_MAX_PATTERN_BYTES", "RULES_MAX_PATTERN_BYTES"],
    8192,
    "Longest regex or hex pattern in YARA rules, in bytes.",
    { min: 1 },
  ),
  rulesMaxAlternatives: integer(
    ["FILES_RULES_MAX_ALTERNATIVES", "RULES_MAX_ALTERNATIVES"],
    1000,
    "Alternatives (`|`) in one regex or hex pattern at most.",
    { min: 1 },
  ),
  rulesModules: list(
    ["FILES_RULES_MODULES", "RULES_MODULES"],
    ["pe", "elf", "macho", "dotnet", "dex", "lnk", "crx", "math", "hash", "string", "time"],
    "YARA modules rules may import, comma-separated (400 module_not_allowed for others).",
  ),
  rulesCompileTimeoutMs: integer(
    ["FILES_RULES_COMPILE_TIMEOUT_MS", "RULES_COMPILE_TIMEOUT_MS"],
    10_000,
    "Time limit of compiling one YARA source, in ms (its worker is stopped past it).",
    { min: 1 },
  ),
  rulesEngine: oneOf(
    ["FILES_RULES_ENGINE", "RULES_ENGINE"],
    "auto",
    "YARA engine scanning: auto (native YARA-X in sandbox processes, WebAssembly where it cannot answer), native (a native crash fails the request), wasm (WebAssembly only).",
    ["auto", "native", "wasm"],
  ),
  rulesNativeMaxBytes: integer(
    ["FILES_RULES_NATIVE_MAX_BYTES", "RULES_NATIVE_MAX_BYTES"],
    1_000_000,
    "Largest file scanned by the native YARA-X build, in bytes; larger ones are scanned by the WebAssembly build (faster per byte on some rules).",
    { min: 0 },
  ),
  rulesNativeMemoryMb: integer(
    ["FILES_RULES_NATIVE_MEMORY_MB", "RULES_NATIVE_MEMORY_MB"],
    1024,
    "Resident memory limit of one native YARA scan process, in MB; past it the scan is stopped.",
    { min: 64 },
  ),
  rulesClientShare: integer(
    ["FILES_RULES_CLIENT_SHARE", "RULES_CLIENT_SHARE"],
    50,
    "Share of the YARA scan workers one client (remote address) may hold at once, in percent (at least one scan each).",
    { min: 1, max: 100 },
  ),
  rulesScanBudgetMs: integer(
    ["FILES_RULES_SCAN_BUDGET_MS", "RULES_SCAN_BUDGET_MS"],
    2000,
    "Time a YARA scan may run on a small file, in ms, plus FILES_RULES_SCAN_BUDGET_MS_PER_MB per MB of the file (FILES_SCAN_TIMEOUT_MS at most).",
    { min: 1 },
  ),
  rulesScanBudgetMsPerMb: integer(
    ["FILES_RULES_SCAN_BUDGET_MS_PER_MB", "RULES_SCAN_BUDGET_MS_PER_MB"],
    250,
    "Time a YARA scan may run per MB of the file, in ms, beyond FILES_RULES_SCAN_BUDGET_MS.",
    { min: 0 },
  ),
  rulesLargeLoops: oneOf(
    ["FILES_RULES_LARGE_LOOPS", "RULES_LARGE_LOOPS"],
    "refuse",
    "YARA loops YARA-X warns iterate too many times (too_many_iterations): refuse (400 rules_too_complex) or allow (the scan budget ends them).",
    ["refuse", "allow"],
  ),
  rulesConsoleMaxChars: integer(
    ["FILES_RULES_CONSOLE_MAX_CHARS", "RULES_CONSOLE_MAX_CHARS"],
    65_536,
    "Characters of `console` module output kept in a result (when FILES_RULES_MODULES allows console).",
    { min: 0 },
  ),
  extractWorkers: integer(
    ["FILES_EXTRACT_WORKERS", "EXTRACT_WORKERS"],
    os.availableParallelism(),
    "Extraction processes running at once (each one a sandbox with its own memory and time limits).",
    {
      min: 1,
      max: 256,
      documentedDefault: "number of CPU cores",
    },
  ),
  extractClientShare: integer(
    "FILES_EXTRACT_CLIENT_SHARE",
    50,
    "Share of the extraction processes one client (remote address) may hold at once, in percent (at least one extraction each).",
    { min: 1, max: 100 },
  ),
  extractTimeoutMs: integer(
    ["FILES_EXTRACT_TIMEOUT_MS", "EXTRACT_TIMEOUT_MS"],
    120_000,
    "Time limit of one extraction, in ms.",
    {
      min: 1,
    },
  ),
  extractMemoryMb: integer(
    ["FILES_EXTRACT_MEMORY_MB", "EXTRACT_MEMORY_MB"],
    1024,
    "Resident memory limit of one extraction process, in MB (heap, WASM, buffers); past it the extraction is stopped.",
    { min: 128 },
  ),
  extractMaxChars: integer(
    ["FILES_EXTRACT_MAX_CHARS", "EXTRACT_MAX_CHARS"],
    10_000_000,
    "Longest extracted text returned, in characters.",
    {
      min: 1,
    },
  ),
  extractMaxDepth: integer(
    ["FILES_EXTRACT_MAX_DEPTH", "EXTRACT_MAX_DEPTH"],
    3,
    "How deep archives inside archives are opened.",
    {
      min: 0,
      max: 20,
    },
  ),
  extractMaxArchiveBytes: integer(
    ["FILES_EXTRACT_MAX_ARCHIVE_BYTES", "EXTRACT_MAX_ARCHIVE_BYTES"],
    500_000_000,
    "Uncompressed bytes read from one archive (zip bombs stop here).",
    { min: 1 },
  ),
  extractMaxArchiveEntries: integer(
    ["FILES_EXTRACT_MAX_ARCHIVE_ENTRIES", "EXTRACT_MAX_ARCHIVE_ENTRIES"],
    10_000,
    "Entries listed from one archive.",
    {
      min: 1,
    },
  ),
  archivePasswords: list(
    ["FILES_ARCHIVE_PASSWORDS", "ARCHIVE_PASSWORDS"],
    ["infected", "malware", "virus", "password", "123456"],
    "Passwords tried on encrypted ZIP and 7z entries after the request's own (comma-separated; none for no default).",
  ),
  archiveMaxPasswords: integer(
    ["FILES_ARCHIVE_MAX_PASSWORDS", "ARCHIVE_MAX_PASSWORDS"],
    50,
    "Passwords a request may send in its `passwords` field (400 too_many_passwords past it).",
    { min: 0, max: 10_000 },
  ),
  archiveMaxPasswordTries: integer(
    ["FILES_ARCHIVE_MAX_PASSWORD_TRIES", "ARCHIVE_MAX_PASSWORD_TRIES"],
    500,
    "Tries (one password on one encrypted entry) per file at most; past it the other entries stay closed.",
    { min: 0 },
  ),
  archiveMaxKeyPower: integer(
    ["FILES_ARCHIVE_MAX_KEY_POWER", "ARCHIVE_MAX_KEY_POWER"],
    22,
    "Highest key-derivation cost a 7z archive may ask for, as a power of two (7-Zip writes 19); past it its encrypted parts are not tried.",
    { min: 0, max: 24 },
  ),
  archiveMaxKeyRounds: integer(
    ["FILES_ARCHIVE_MAX_KEY_ROUNDS", "ARCHIVE_MAX_KEY_ROUNDS"],
    16_777_216,
    "Key-derivation rounds (SHA-256) spent on one file's 7z passwords at most; past it the other entries stay closed.",
    { min: 0 },
  ),
  clamdSocket: optionalText(
    ["FILES_CLAMD_SOCKET", "CLAMD_SOCKET"],
    "Unix socket of clamd (wins over FILES_CLAMD_HOST/FILES_CLAMD_PORT).",
  ),
  clamdHost: optionalText(["FILES_CLAMD_HOST", "CLAMD_HOST"], "TCP host of a remote clamd."),
  clamdPort: integer(["FILES_CLAMD_PORT", "CLAMD_PORT"], 3310, "TCP port of a remote clamd.", {
    min: 1,
    max: 65535,
  }),
  clamdScanPaths: oneOf(
    "FILES_CLAMD_SCAN_PATHS",
    "auto",
    "Whether clamd reads each upload from its temp file (SCAN by path) instead of being sent its bytes (INSTREAM): auto = for the clamd Loupe runs itself only; yes only for a clamd on this machine that can read FILES_TMP_DIR and whose MaxFileSize is above FILES_MAX_FILE_SIZE (clamd passes larger files as clean).",
    ["auto", "yes", "no"],
  ),
  scanTimeoutMs: integer(
    ["FILES_SCAN_TIMEOUT_MS", "SCAN_TIMEOUT_MS"],
    60_000,
    "Time limit of one antivirus or YARA scan, in ms.",
    {
      min: 1,
    },
  ),
  clamdStreamTimeoutMs: integer(
    ["FILES_CLAMD_STREAM_TIMEOUT_MS", "CLAMD_STREAM_TIMEOUT_MS"],
    300_000,
    "Longest an upload may take to stream into clamd (0 = bounded only by the HTTP timeouts).",
    { min: 0 },
  ),
  antivirusBatchBytes: integer(
    ["FILES_ANTIVIRUS_BATCH_BYTES", "ANTIVIRUS_BATCH_BYTES"],
    20_000_000,
    "Bytes of an upload's children packed into one clamd scan at most (under clamd's StreamMaxLength).",
    { min: 1 },
  ),
  antivirusAlertUnscanned: flag(
    ["FILES_ANTIVIRUS_ALERT_UNSCANNED", "ANTIVIRUS_ALERT_UNSCANNED"],
    false,
    "Report a child the antivirus could not scan (no password opened it, over a limit) as a detection, as ClamAV's AlertEncrypted does.",
  ),
  tikaUrl: optionalText(
    ["FILES_TIKA_URL", "TIKA_URL"],
    "Optional Apache Tika server used for formats Loupe cannot read itself.",
  ),
  tikaTimeoutMs: integer(
    ["FILES_TIKA_TIMEOUT_MS", "TIKA_TIMEOUT_MS"],
    60_000,
    "Time limit of one Tika request, in ms.",
    { min: 1 },
  ),
  ocr: flag(["FILES_OCR", "OCR"], false, "OCR images and PDF pages without text with tesseract."),
  ocrLanguages: text(
    ["FILES_OCR_LANGUAGES", "OCR_LANGUAGES"],
    "eng",
    "tesseract languages, joined by + (eng+fra).",
  ),
  ocrTimeoutMs: integer(
    ["FILES_OCR_TIMEOUT_MS", "OCR_TIMEOUT_MS"],
    60_000,
    "Time limit of one OCR run (one image or PDF page), in ms.",
    {
      min: 1,
    },
  ),
  ocrMaxPages: integer(
    ["FILES_OCR_MAX_PAGES", "OCR_MAX_PAGES"],
    50,
    "PDF pages without text OCRed per file at most.",
    { min: 0 },
  ),
  iocMaxChars: integer(
    ["FILES_IOC_MAX_CHARS", "IOC_MAX_CHARS"],
    10_000_000,
    "Characters of text scanned for indicators per file; past it the result says truncated.",
    { min: 0 },
  ),
  iocMaxIndicators: integer(
    ["FILES_IOC_MAX_INDICATORS", "IOC_MAX_INDICATORS"],
    5000,
    "Distinct indicators returned per file at most.",
    {
      min: 0,
    },
  ),
  iocMaxTokenChars: integer(
    ["FILES_IOC_MAX_TOKEN_CHARS", "IOC_MAX_TOKEN_CHARS"],
    4096,
    "Longest run of non-space characters looked at as an indicator (longer runs are skipped).",
    { min: 16 },
  ),
  fuzzyMaxBytes: integer(
    ["FILES_FUZZY_MAX_BYTES", "FUZZY_MAX_BYTES"],
    20_000_000,
    "Largest file given ssdeep and TLSH digests, in bytes (ssdeep runs at about 8–13 MB/s, TLSH 100 MB/s).",
    { min: 0 },
  ),
  fuzzyTimeoutMs: integer(
    ["FILES_FUZZY_TIMEOUT_MS", "FUZZY_TIMEOUT_MS"],
    60_000,
    "Time limit of the fuzzy hashes of one file, in ms.",
    {
      min: 1,
    },
  ),
  executableMaxBytes: integer(
    ["FILES_EXECUTABLE_MAX_BYTES", "EXECUTABLE_MAX_BYTES"],
    100_000_000,
    "Largest PE, ELF, Mach-O, LNK or DEX file whose structure is read (extra.executable), in bytes.",
    { min: 0 },
  ),
  executableTimeoutMs: integer(
    ["FILES_EXECUTABLE_TIMEOUT_MS", "EXECUTABLE_TIMEOUT_MS"],
    30_000,
    "Time limit of reading one executable's structure (YARA-X modules), in ms.",
    { min: 1 },
  ),
  executableMaxItems: integer(
    ["FILES_EXECUTABLE_MAX_ITEMS", "EXECUTABLE_MAX_ITEMS"],
    1000,
    "Items listed per list of extra.executable (sections, imports, exports, resources, symbols, classes).",
    { min: 1, max: 1_000_000 },
  ),
  executableMaxTableEntries: integer(
    ["FILES_EXECUTABLE_MAX_TABLE_ENTRIES", "EXECUTABLE_MAX_TABLE_ENTRIES"],
    20_000,
    "Entries of an inflatable table (ELF symbols, Mach-O load commands) parsed per executable; past it the table is cut and truncated says so.",
    { min: 1, max: 10_000_000 },
  ),
  executableMaxOutputChars: integer(
    ["FILES_EXECUTABLE_MAX_OUTPUT_CHARS", "EXECUTABLE_MAX_OUTPUT_CHARS"],
    4_000_000,
    "Characters of YARA-X module output read per executable; past it the lists stop and truncated says output.",
    { min: 1000 },
  ),
  iocTimeoutMs: integer(
    ["FILES_IOC_TIMEOUT_MS", "IOC_TIMEOUT_MS"],
    30_000,
    "Time limit of one indicator scan, in ms.",
    { min: 1 },
  ),
  iocMaxLocations: integer(
    ["FILES_IOC_MAX_LOCATIONS", "IOC_MAX_LOCATIONS"],
    20,
    "Locations listed per indicator (all are counted).",
    {
      min: 0,
    },
  ),
};

/** Worker threads each pool keeps started while idle (the next request does not wait for one); tuning, not a setting. */
export const WARM_THREADS = 1;

export type FilesConfig = ReturnType<typeof readFilesConfig>;

export function readFilesConfig(env: NodeJS.ProcessEnv = process.env) {
  return readSettings(filesSettings, withDerivedDefaults(filesSettings, env));
}
