import os from "node:os";
import path from "node:path";
import { flag, integer, optionalText, readSettings, text } from "../common/settings.ts";

/** Settings of the files service. Every limit is here, with its default; docs/configuration.md lists them. */
export const filesSettings = {
  port: integer("FILES_PORT", 8000, "Port of the files service.", { min: 0, max: 65535 }),
  maxFileSize: integer("MAX_FILE_SIZE", 250_000_000, "Largest accepted upload, in bytes (400 past it).", {
    min: 1,
  }),
  maxFieldSize: integer(
    "MAX_FORM_FIELD_SIZE",
    10_000_000,
    "Largest accepted text form field (YARA rules), in bytes.",
    { min: 1 },
  ),
  tmpDir: text(
    "FILES_TMP_DIR",
    path.join(os.tmpdir(), "loupe-files"),
    "Folder for upload temp files (mode 0700).",
  ),
  maxImagePixels: integer(
    "MAX_IMAGE_PIXELS",
    100_000_000,
    "Largest image accepted by the thumbnail converter, input and output, in pixels.",
    { min: 1 },
  ),
  maxThumbnailSide: integer("MAX_THUMBNAIL_SIDE", 10_000, "Largest thumbnail width or height, in pixels.", {
    min: 1,
  }),
  thumbnailConcurrency: integer(
    "THUMBNAIL_CONCURRENCY",
    os.availableParallelism(),
    "Thumbnails decoded at once; more requests wait in line (bounds memory under bursts).",
    { min: 1, max: 256, documentedDefault: "number of CPU cores" },
  ),
  yaraWorkers: integer("YARA_WORKERS", os.availableParallelism(), "Worker threads running YARA scans.", {
    min: 1,
    max: 256,
    documentedDefault: "number of CPU cores",
  }),
  workerIdleMs: integer(
    "WORKER_IDLE_MS",
    60_000,
    "How long an idle YARA worker thread lives before it is stopped.",
    { min: 100 },
  ),
  workerMinThreads: integer(
    "WORKER_MIN_THREADS",
    1,
    "YARA worker threads kept even when idle (0 gives their memory back; the next request starts a thread).",
    { min: 0, max: 256 },
  ),
  rulesCacheSize: integer("RULES_CACHE_SIZE", 32, "Compiled YARA rule sets kept per worker (LRU).", {
    min: 0,
    max: 10_000,
  }),
  ruleMaxMatchesPerString: integer(
    "RULE_MAX_MATCHES_PER_STRING",
    1000,
    "Instances reported per YARA string (the scan stops counting past it).",
    { min: 1 },
  ),
  rulePlaintextMax: integer("RULE_PLAINTEXT_MAX", 256, "Bytes of each match shown in `plaintext`.", {
    min: 0,
    max: 65_536,
  }),
  extractWorkers: integer(
    "EXTRACT_WORKERS",
    os.availableParallelism(),
    "Extraction processes running at once (each one a sandbox with its own memory and time limits).",
    {
      min: 1,
      max: 256,
      documentedDefault: "number of CPU cores",
    },
  ),
  extractTimeoutMs: integer("EXTRACT_TIMEOUT_MS", 120_000, "Time limit of one extraction, in ms.", {
    min: 1,
  }),
  extractMemoryMb: integer(
    "EXTRACT_MEMORY_MB",
    1024,
    "Resident memory limit of one extraction process, in MB (heap, WASM, buffers); past it the extraction is stopped.",
    { min: 128 },
  ),
  extractMinProcesses: integer(
    "EXTRACT_MIN_PROCESSES",
    1,
    "Extraction processes kept warm when idle (0 gives all their memory back; the next extraction waits for one to start).",
    { min: 0, max: 256 },
  ),
  extractIdleMs: integer(
    "EXTRACT_IDLE_MS",
    60_000,
    "How long an idle extraction process beyond EXTRACT_MIN_PROCESSES lives before it is stopped.",
    { min: 100 },
  ),
  extractMaxChars: integer(
    "EXTRACT_MAX_CHARS",
    10_000_000,
    "Longest extracted text returned, in characters.",
    {
      min: 1,
    },
  ),
  extractMaxDepth: integer("EXTRACT_MAX_DEPTH", 3, "How deep archives inside archives are opened.", {
    min: 0,
    max: 20,
  }),
  extractMaxArchiveBytes: integer(
    "EXTRACT_MAX_ARCHIVE_BYTES",
    500_000_000,
    "Uncompressed bytes read from one archive (zip bombs stop here).",
    { min: 1 },
  ),
  extractMaxArchiveEntries: integer(
    "EXTRACT_MAX_ARCHIVE_ENTRIES",
    10_000,
    "Entries listed from one archive.",
    {
      min: 1,
    },
  ),
  clamdSocket: optionalText("CLAMD_SOCKET", "Unix socket of clamd (wins over CLAMD_HOST/CLAMD_PORT)."),
  clamdHost: optionalText("CLAMD_HOST", "TCP host of a remote clamd."),
  clamdPort: integer("CLAMD_PORT", 3310, "TCP port of a remote clamd.", { min: 1, max: 65535 }),
  scanTimeoutMs: integer("SCAN_TIMEOUT_MS", 60_000, "Time limit of one antivirus or YARA scan, in ms.", {
    min: 1,
  }),
  tikaUrl: optionalText("TIKA_URL", "Optional Apache Tika server used for formats Loupe cannot read itself."),
  tikaTimeoutMs: integer("TIKA_TIMEOUT_MS", 60_000, "Time limit of one Tika request, in ms.", { min: 1 }),
  ocr: flag("OCR", false, "OCR images and PDF pages without text with tesseract."),
  ocrLanguages: text("OCR_LANGUAGES", "eng", "tesseract languages, joined by + (eng+fra)."),
  ocrTimeoutMs: integer(
    "OCR_TIMEOUT_MS",
    60_000,
    "Time limit of one OCR run (one image or PDF page), in ms.",
    {
      min: 1,
    },
  ),
  ocrMaxPages: integer("OCR_MAX_PAGES", 50, "PDF pages without text OCRed per file at most.", { min: 0 }),
};

export type FilesConfig = ReturnType<typeof readFilesConfig>;

export function readFilesConfig(env: NodeJS.ProcessEnv = process.env) {
  return readSettings(filesSettings, env);
}
