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
import { sevenZipKeyPowers } from "./sevenzip-header.ts";
import { type EntryKey, type SevenZipRunner, unlockEntries } from "./unlock.ts";

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
  /** 7-Zip's method ("LZMA2:12 7zAES:19") and block (the entries of one block share a key). */
  method?: string;
  block?: string;
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
        ...(current.Method ? { method: current.Method } : {}),
        ...(current.Block ? { block: current.Block } : {}),
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

/**
 * A 7-Zip for many runs on one archive: a fresh module, with the archive, every RUNS_PER_MODULE
 * runs, or after one that stopped on an exception. It remembers which keys its module derived
 * (7-Zip keeps them for the module's life), so a password's key is paid for once.
 */
function runner(bytes: Buffer, output: string[], maxLines: number): SevenZipRunner {
  let sz: SevenZipModule | undefined;
  let runs = RUNS_PER_MODULE;
  const derived = new Set<string>();
  const id = (password: string, key: EntryKey) => `${key.group}\0${password}`;
  return {
    archive: ARCHIVE,
    output,
    async exec(args, prepare) {
      if (!sz || runs >= RUNS_PER_MODULE) {
        sz = await sevenZip(output, maxLines);
        sz.FS.writeFile(ARCHIVE, bytes);
        derived.clear();
        runs = 0;
      }
      runs++;
      prepare(sz.FS);
      try {
        return { sz, code: run(sz, output, args) };
      } catch (err) {
        if (!(err instanceof ParseFailure)) throw err;
        runs = RUNS_PER_MODULE; // a module an exception went through is not trusted again
        return { sz, code: -1 };
      }
    },
    cost(password, keys) {
      let rounds = 0;
      const fresh = runs >= RUNS_PER_MODULE;
      for (const key of keys) if (fresh || !derived.has(id(password, key))) rounds += key.rounds;
      return rounds;
    },
    derived(password, keys) {
      for (const key of keys) derived.add(id(password, key));
    },
  };
}

const HEADERS_ENCRYPTED = /Cannot open encrypted archive/i;
const HEADER_KEY = "header";

/** The listing of an archive whose names are encrypted too: each password in turn (one try each). */
async function listEncrypted(
  z: SevenZipRunner,
  limits: Limits,
  power: number,
): Promise<{ entries: Listed[]; password: string }> {
  const maxPower = limits.maxKeyPower ?? 24;
  if (power > maxPower)
    throw new ParseFailure(
      `encrypted 7z archive (names included): its key derivation asks for 2^${power} rounds per password, over FILES_ARCHIVE_MAX_KEY_POWER (2^${maxPower}); no password was tried`,
    );
  const key: EntryKey = { group: HEADER_KEY, rounds: 2 ** power };
  for (const password of limits.keyring?.list ?? []) {
    if (!limits.budget.hasTime() || !limits.keyring?.take(1, limits.maxPasswordTries ?? 0)) break;
    if (!limits.budget.takeKeyRounds(z.cost(password, [key]))) {
      limits.budget.stop(`more than ${limits.maxKeyRounds} key-derivation rounds spent on passwords`);
      break;
    }
    const { code } = await z.exec(["l", "-slt", "-sccUTF-8", `-p${password}`, ARCHIVE], () => {});
    z.derived(password, [key]);
    const entries = code === 0 ? parseListing(z.output) : [];
    if (entries.length > 0) return { entries, password };
    z.output.length = 0;
  }
  if (limits.keyring?.exhausted) limits.budget.stop(limits.keyring.exhausted);
  throw new ParseFailure("encrypted 7z archive (names included): none of the passwords opened it");
}

/**
 * Lists the archive. When the header says its names are encrypted, the passwords are tried on it
 * at once (a dummy password would cost a key derivation, and 7-Zip stops on an exception for some
 * such archives); otherwise -p with a dummy password makes encrypted parts fail instead of asking
 * on stdin. Returns the listing and the password that opened it, if one had to.
 */
async function list(
  z: SevenZipRunner,
  bytes: Buffer,
  limits: Limits,
): Promise<{ entries: Listed[]; password?: string }> {
  const header = sevenZipKeyPowers(bytes);
  if (header?.headerEncrypted) return listEncrypted(z, limits, Math.max(...header.powers));
  const { code } = await z.exec(["l", "-slt", "-sccUTF-8", "-pLOUPE", ARCHIVE], () => {});
  const entries = parseListing(z.output);
  if (code === 0 || entries.length > 0) return { entries };
  // Encrypted names in a header the reader could not read: their key's cost is unknown.
  if (z.output.some((l) => HEADERS_ENCRYPTED.test(l)))
    throw new ParseFailure(
      "encrypted 7z archive (names included) whose key-derivation cost cannot be read: no password was tried",
    );
  throw new ParseFailure(`unreadable 7z archive: ${problem(z.output)}`);
}

/** An encrypted entry's key (7-Zip lists `7zAES:19` in its method): its block and its rounds. */
function keyOf(e: Listed): { key: EntryKey; power: number } | null {
  const power = /\b7zAES:(\d+)/.exec(e.method ?? "")?.[1];
  if (power === undefined) return null;
  return { key: { group: `block ${e.block ?? e.path}`, rounds: 2 ** Number(power) }, power: Number(power) };
}

/** Chooses the entries to unpack within the budget; encrypted ones go to `locked`. */
function plan(listed: Listed[], limits: Limits) {
  const entries: ArchiveEntry[] = [];
  const wanted: ArchiveEntry[] = [];
  const locked: ArchiveEntry[] = [];
  const keys = new Map<ArchiveEntry, EntryKey>();
  const maxPower = limits.maxKeyPower ?? 24;
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
    const key = entry.encrypted ? keyOf(e) : null;
    if (key && key.power > maxPower) {
      entry.notTried = `its key derivation asks for 2^${key.power} rounds per password, over FILES_ARCHIVE_MAX_KEY_POWER (2^${maxPower}): no password was tried`;
      continue;
    }
    if (!limits.budget.takeBytes(e.size, limits.maxArchiveBytes)) {
      truncated ??= `more than ${limits.maxArchiveBytes} uncompressed bytes`;
      continue;
    }
    if (key) keys.set(entry, key.key);
    (entry.encrypted ? locked : wanted).push(entry);
  }
  return { entries, wanted, locked, keys, truncated };
}

export async function readSevenZip(bytes: Buffer, limits: Limits): Promise<ArchiveListing> {
  const output: string[] = [];
  // About ten lines per entry in `l -slt` (the header and the summary take a few dozen more), and
  // a few lines per entry of one unlock run (unlock.ts runs at most 256 entries at once).
  const z = runner(bytes, output, Math.max((limits.maxArchiveEntries + 2) * 16 + 100, 256 * 4 + 100));
  const listing = await list(z, bytes, limits);
  const { entries, wanted, locked, keys, truncated } = plan(listing.entries, limits);
  if (wanted.length > 0) {
    output.length = 0;
    const password = `-p${listing.password ?? "LOUPE"}`;
    const { sz } = await z.exec(
      ["x", "-y", "-sccUTF-8", "-scsUTF-8", password, `-o${OUT}`, ARCHIVE, "-i@/list.txt"],
      (fs) => fs.writeFile("/list.txt", wanted.map((e) => e.name).join("\n")),
    );
    for (const e of wanted) {
      try {
        const data = sz.FS.readFile(`${OUT}/${e.name}`);
        e.bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      } catch {
        // Not written (a damaged block): listed without its text.
      }
    }
  }
  const stopped = await unlockEntries(z, locked, limits, listing.password, (e) => {
    return keys.get(e) ?? { group: e.name, rounds: 0 };
  });
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
 * stdout, byte by byte into our buffer, and is stopped by a write error at the bytes budget; what
 * came before is kept.
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
  chunks.push(chunk.subarray(0, used));
  limits.budget.takeBytes(total, limits.maxArchiveBytes);
  // Over the budget: the head is kept and read (padding after the content must not hide it).
  if (overBudget)
    return { data: Buffer.concat(chunks), truncated: limits.budget.cutStream(total, limits.maxArchiveBytes) };
  if (code !== 0) throw new ParseFailure(`unreadable compressed stream: ${problem(output)}`);
  return { data: Buffer.concat(chunks), truncated: null };
}
