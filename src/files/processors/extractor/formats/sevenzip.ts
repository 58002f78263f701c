/**
 * 7z archives, ISO 9660 images, CAB cabinets, and XZ and BZIP2 streams with 7z-wasm (7-Zip
 * itself, compiled to WebAssembly, in memory). The listing
 * (`7zz l -slt`) gives every entry's size before anything is unpacked; only entries that fit
 * in the entry count and the uncompressed-bytes budget are extracted, so a 7z bomb ends in a
 * partial result that says so. Encrypted entries are listed, never prompted for: the extraction's
 * passwords are tried on them (unlock.ts), and on the listing of an archive whose names are
 * encrypted too (`7z -mhe`).
 */
import sevenZipPackage, { type SevenZipModule } from "7z-wasm";
import type { Limits } from "../budget.ts";
import { ParseFailure } from "../result.ts";
import type { ArchiveEntry, ArchiveListing } from "./entries.ts";
import { type SevenZipRunner, unlockEntries } from "./unlock.ts";

// CommonJS package: the factory is also its `default` property, which is what TypeScript sees.
const SevenZip = sevenZipPackage.default;
const ARCHIVE = "/archive.7z";
const OUT = "/out";

interface Listed {
  path: string;
  /** null when the format does not say (a bare compressed stream): such an entry is never unpacked. */
  size: number | null;
  folder: boolean;
  encrypted: boolean;
}

/**
 * A fresh 7-Zip per archive. Output past `maxLines` is dropped: an archive of millions of tiny
 * entries must not become millions of listing lines (the entry limit is applied to what is kept).
 */
async function sevenZip(output: string[], maxLines: number): Promise<SevenZipModule> {
  const keep = (line: string) => {
    if (output.length < maxLines) output.push(line);
  };
  return SevenZip({
    print: keep,
    printErr: keep,
    // Never read the process's stdin (a password prompt would wait forever).
    stdin: () => null,
  } as never);
}

/** Parses `7zz l -slt`: blocks of "Key = value" lines after the "----------" separator. */
function parseListing(lines: string[]): Listed[] {
  const start = lines.indexOf("----------");
  if (start < 0) return [];
  const entries: Listed[] = [];
  let current: Record<string, string> = {};
  const flush = () => {
    if (current.Path !== undefined) {
      entries.push({
        path: current.Path,
        size: current.Size ? Number(current.Size) : null,
        folder: (current.Folder ?? "") === "+" || (current.Attributes ?? "").startsWith("D"),
        encrypted: current.Encrypted === "+",
      });
    }
    current = {};
  };
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") {
      flush();
      continue;
    }
    const eq = line.indexOf(" = ");
    if (eq > 0) current[line.slice(0, eq)] = line.slice(eq + 3);
  }
  flush();
  return entries;
}

const problem = (lines: string[]) =>
  lines
    .filter((l) => /^(ERROR|Can ?not|Open ERROR|Unexpected end|Headers Error|Data Error)/i.test(l.trim()))
    .join("; ") || lines.slice(-3).join("; ");

/** Runs 7-Zip; a C++ exception escaping it arrives as a bare number, turned into a parse failure. */
function run(sz: SevenZipModule, output: string[], args: string[]): number {
  try {
    return sz.callMain(args) as unknown as number;
  } catch (err) {
    if (err instanceof Error) throw err;
    throw new ParseFailure(`7-Zip stopped on this archive: ${problem(output)}`);
  }
}

/** Runs of one module before a fresh one takes over (a module run some hundred times faults). */
const RUNS_PER_MODULE = 32;

/** A 7-Zip for many runs on one archive: a fresh module, with the archive, every RUNS_PER_MODULE runs. */
function runner(bytes: Buffer, output: string[], maxLines: number, first?: SevenZipModule): SevenZipRunner {
  let sz = first;
  let runs = 0;
  return {
    archive: ARCHIVE,
    output,
    async exec(args, prepare) {
      if (!sz || runs >= RUNS_PER_MODULE) {
        sz = await sevenZip(output, maxLines);
        sz.FS.writeFile(ARCHIVE, bytes);
        runs = 0;
      }
      runs++;
      prepare(sz.FS);
      run(sz, output, args);
      return sz;
    },
  };
}

const HEADERS_ENCRYPTED = /Cannot open encrypted archive/i;

/**
 * Lists with a wrong password: 7-Zip's exit code, or null when it stopped (as it does on some
 * archives whose names are encrypted) and the header says the names are encrypted.
 */
function listOnce(sz: SevenZipModule, output: string[]): number | null {
  try {
    return run(sz, output, ["l", "-slt", "-sccUTF-8", "-pLOUPE", ARCHIVE]);
  } catch (err) {
    if (err instanceof ParseFailure && namesEncrypted(Buffer.from(sz.FS.readFile(ARCHIVE)))) return null;
    throw err;
  }
}

/** 7z's end header is an encoded header (0x17) whose coder is AES-256 (06 F1 07 01): the names are encrypted. */
function namesEncrypted(bytes: Buffer): boolean {
  if (bytes.length < 32) return false;
  const at = 32 + Number(bytes.readBigUInt64LE(12));
  const size = Number(bytes.readBigUInt64LE(20));
  if (at >= bytes.length || bytes[at] !== 0x17) return false;
  return bytes
    .subarray(at, Math.min(bytes.length, at + size))
    .includes(Buffer.from([0x06, 0xf1, 0x07, 0x01]));
}

/**
 * Lists the archive; when its names are encrypted too, with each password in turn (one try each).
 * Returns the listing and the password that opened it, if one had to.
 */
function list(
  sz: SevenZipModule,
  output: string[],
  limits: Limits,
): { entries: Listed[]; password?: string } {
  const listed = listOnce(sz, output);
  let entries = parseListing(output);
  const locked = listed === null || output.some((l) => HEADERS_ENCRYPTED.test(l));
  if (listed === 0 || entries.length > 0 || !locked) {
    if (listed !== 0 && entries.length === 0)
      throw new ParseFailure(`unreadable 7z archive: ${problem(output)}`);
    return { entries };
  }
  for (const password of limits.keyring?.list ?? []) {
    if (!limits.budget.hasTime() || !limits.keyring?.take(1, limits.maxPasswordTries ?? 0)) break;
    output.length = 0;
    if (run(sz, output, ["l", "-slt", "-sccUTF-8", `-p${password}`, ARCHIVE]) !== 0) continue;
    entries = parseListing(output);
    if (entries.length > 0) return { entries, password };
  }
  if (limits.keyring?.exhausted) limits.budget.stop(limits.keyring.exhausted);
  throw new ParseFailure("encrypted 7z archive (names included): none of the passwords opened it");
}

/** Chooses the entries to unpack within the budget; encrypted ones go to `locked`. */
function plan(listed: Listed[], limits: Limits) {
  const entries: ArchiveEntry[] = [];
  const wanted: ArchiveEntry[] = [];
  const locked: ArchiveEntry[] = [];
  let truncated: string | null = null;
  for (const e of listed) {
    if (!limits.budget.takeEntry(limits.maxArchiveEntries)) {
      truncated ??= `more than ${limits.maxArchiveEntries} entries`;
      break;
    }
    const entry: ArchiveEntry = { name: e.folder ? `${e.path}/` : e.path, size: e.size ?? 0 };
    if (e.encrypted && !e.folder) entry.encrypted = true;
    entries.push(entry);
    // Wildcard characters would make 7-Zip extract more than the name asked for.
    if (e.folder || /[*?]/.test(e.path)) continue;
    if (e.size === null || Number.isNaN(e.size)) {
      truncated ??= `${e.path}: uncompressed size unknown, not unpacked`;
      continue;
    }
    if (!limits.budget.takeBytes(e.size, limits.maxArchiveBytes)) {
      truncated ??= `more than ${limits.maxArchiveBytes} uncompressed bytes`;
      continue;
    }
    (entry.encrypted ? locked : wanted).push(entry);
  }
  return { entries, wanted, locked, truncated };
}

export async function readSevenZip(bytes: Buffer, limits: Limits): Promise<ArchiveListing> {
  const output: string[] = [];
  // About ten lines per entry in `l -slt`; the header and the summary take a few dozen more.
  const sz = await sevenZip(output, (limits.maxArchiveEntries + 2) * 16 + 100);
  sz.FS.writeFile(ARCHIVE, bytes);
  // -p with a dummy password: encrypted archives fail instead of asking on stdin.
  const listing = list(sz, output, limits);
  const { entries, wanted, locked, truncated } = plan(listing.entries, limits);
  if (wanted.length > 0) {
    output.length = 0;
    sz.FS.writeFile("/list.txt", wanted.map((e) => e.name).join("\n"));
    const password = `-p${listing.password ?? "LOUPE"}`;
    run(sz, output, ["x", "-y", "-sccUTF-8", "-scsUTF-8", password, `-o${OUT}`, ARCHIVE, "-i@/list.txt"]);
    for (const e of wanted) {
      try {
        const data = sz.FS.readFile(`${OUT}/${e.name}`);
        e.bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      } catch {
        // Not written (a damaged block): listed without its text.
      }
    }
  }
  // A few lines per entry of one run (unlock.ts runs at most 256 entries at once).
  const stopped = await unlockEntries(runner(bytes, output, 256 * 4 + 100), locked, limits, listing.password);
  return { entries, truncated: truncated ?? stopped };
}

/** The encrypted entries of a ZIP (read by fflate otherwise), opened with 7-Zip and the passwords. */
export async function unlockZipEntries(
  bytes: Buffer,
  locked: ArchiveEntry[],
  limits: Limits,
): Promise<string | null> {
  return unlockEntries(runner(bytes, [], 256 * 4 + 100), locked, limits);
}

/**
 * A single compressed stream (XZ, BZIP2), which states no uncompressed size: 7-Zip writes it to
 * stdout, byte by byte into our buffer, and is stopped by a write error at the bytes budget.
 */
export async function unpackStream(
  bytes: Buffer,
  limits: Limits,
): Promise<{ data: Buffer; truncated: string | null }> {
  const chunks: Buffer[] = [];
  let chunk = Buffer.alloc(1 << 16);
  let used = 0;
  let total = 0;
  let overBudget = false;
  const allowed = limits.budget.bytesLeft;
  const output: string[] = [];
  const keep = (line: string) => {
    if (output.length < 100) output.push(line);
  };
  const sz = await SevenZip({
    print: keep,
    printErr: keep,
    stdin: () => null,
    stdout: (byte: number) => {
      if (total >= allowed) {
        overBudget = true;
        throw new Error("over the budget"); // 7-Zip sees a write error and stops
      }
      chunk[used++] = byte;
      total++;
      if (used === chunk.length) {
        chunks.push(chunk);
        chunk = Buffer.alloc(Math.min(chunk.length * 2, 1 << 24));
        used = 0;
      }
    },
  } as never);
  sz.FS.writeFile(ARCHIVE, bytes);
  const code = run(sz, output, ["e", "-so", "-pLOUPE", ARCHIVE]);
  if (overBudget) {
    const why = limits.budget.stop(`more than ${limits.maxArchiveBytes} uncompressed bytes`);
    return { data: Buffer.alloc(0), truncated: why };
  }
  limits.budget.takeBytes(total, limits.maxArchiveBytes);
  if (code !== 0) throw new ParseFailure(`unreadable compressed stream: ${problem(output)}`);
  chunks.push(chunk.subarray(0, used));
  return { data: Buffer.concat(chunks), truncated: null };
}
