/** `./loupe test`: install what the tests need, lint and type-check, then run the whole suite. */
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../common/config.ts";
import { createLogger } from "../common/logger.ts";
import { ensureDebianPackages } from "../common/system.ts";
import { UsageError } from "./usage.ts";

/** Debian packages the suite uses as real peers and oracles; installed when root, else suites skip. */
export const TEST_SYSTEM_PACKAGES: string[] = [
  "yara",
  "clamav-daemon",
  "clamdscan",
  "chromium", // admin panel browser tests (driven by playwright-core, never a downloaded browser)
  "libreoffice-writer-nogui", // real producers for the extractor's document fixtures
  "libreoffice-calc-nogui",
  "libreoffice-impress-nogui",
  "libimage-exiftool-perl", // image metadata fixtures
  "poppler-utils", // pdftotext: the extraction benchmark's baseline and a text oracle
  "tesseract-ocr", // optional OCR backend
  "tesseract-ocr-eng",
  "7zip", // 7z archive fixtures
  "qpdf", // PDF attachments for the analysis tree corpus (qpdf --add-attachment)
  "xorriso", // ISO 9660 image fixtures
  "gcab", // CAB cabinet fixtures
  "ffmpeg", // tagged audio and video fixtures
  "libheif-examples", // heif-enc: HEIC fixtures (sharp cannot encode HEVC)
  "sqlite3", // the backup and restore test (SQLite's online backup)
  "ssdeep", // oracle of the ssdeep digests
  "tlsh-tools", // oracle of the TLSH digests (and of telfhash, TLSH over symbol names)
  "gcc", // ELF fixtures (with symbols, stripped, a shared library) for executable facts
  "gcc-mingw-w64-x86-64", // PE fixtures: x86_64-w64-mingw32-gcc and dlltool (imports by ordinal)
  "python3-pefile", // oracle of the PE imphash (pefile's get_imphash, in Debian's python3)
  "osslsigncode", // Authenticode-signed PE fixtures (self-signed with openssl)
  "clang", // Mach-O fixtures (x86-64 and arm64 objects)
  "lld", // ld64.lld links them into Mach-O executables
  "llvm", // llvm-lipo makes a universal (fat) Mach-O of both
];

export async function test(args: string[]): Promise<number | undefined> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      "no-lint": { type: "boolean" },
      "no-install": { type: "boolean" },
      concurrency: { type: "string", default: "2" },
    },
  });
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UsageError(
      `--concurrency takes a whole number of test files at a time, not "${values.concurrency}"`,
    );
  const log = createLogger("info", "test");
  if (!values["no-install"]) {
    const missing = ensureDebianPackages(TEST_SYSTEM_PACKAGES, log);
    if (missing.length > 0) log.warn(`suites needing ${missing.join(", ")} will be skipped`);
  }
  if (!values["no-lint"]) {
    if (!step("lint (biome)", "biome", ["check", "."])) return 1;
    if (!step("type-check (tsc)", "tsc", ["-p", "tsconfig.json"])) return 1;
  }
  const files = positionals.length > 0 ? positionals : ["test/**/*.test.ts"];
  const ok = step("tests", process.execPath, [
    "--disable-warning=ExperimentalWarning",
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-timeout=300000",
    ...files,
  ]);
  return ok ? 0 : 1;
}

/**
 * Node's on-disk compile cache (type-stripped output and V8 code), inherited by every test process
 * and every `./loupe` process a test starts: each loads the same few thousand modules, and the
 * cache takes about 40 % of the CPU off a start. Node checks each entry against its source.
 */
const COMPILE_CACHE = process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), "loupe-test-compile-cache");

function step(title: string, command: string, args: string[]): boolean {
  process.stdout.write(`\n── ${title} ──\n`);
  const r = spawnSync(command, args, {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent", NODE_COMPILE_CACHE: COMPILE_CACHE },
  });
  if (r.error) process.stderr.write(`${title}: ${r.error.message}\n`);
  return r.status === 0;
}
