/**
 * 7z archives, ISO 9660 images, CAB cabinets, and XZ and BZIP2 streams with 7z-wasm (7-Zip
 * itself, compiled to WebAssembly, in memory). The listing
 * (`7zz l -slt`) gives every entry's size before anything is unpacked; only entries that fit
 * in the entry count and the uncompressed-bytes budget are extracted, so a 7z bomb ends in a
 * partial result that says so. Encrypted entries are listed, never prompted for.
 */
import sevenZipPackage, { type SevenZipModule } from "7z-wasm";
import type { Limits } from "../budget.ts";
import { ParseFailure } from "../result.ts";
import type { ArchiveEntry, ArchiveListing } from "./archive.ts";

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

export async function readSevenZip(bytes: Buffer, limits: Limits): Promise<ArchiveListing> {
  const output: string[] = [];
  // About ten lines per entry in `l -slt`; the header and the summary take a few dozen more.
  const sz = await sevenZip(output, (limits.maxArchiveEntries + 2) * 16 + 100);
  sz.FS.writeFile(ARCHIVE, bytes);
  // -p with a dummy password: encrypted archives fail instead of asking on stdin.
  const listed = run(sz, output, ["l", "-slt", "-sccUTF-8", "-pLOUPE", ARCHIVE]);
  const entriesListed = parseListing(output);
  if (listed !== 0 && entriesListed.length === 0)
    throw new ParseFailure(`unreadable 7z archive: ${problem(output)}`);

  const entries: ArchiveEntry[] = [];
  const wanted: ArchiveEntry[] = [];
  let truncated: string | null = null;
  for (const e of entriesListed) {
    if (!limits.budget.takeEntry(limits.maxArchiveEntries)) {
      truncated ??= `more than ${limits.maxArchiveEntries} entries`;
      break;
    }
    const entry: ArchiveEntry = { name: e.folder ? `${e.path}/` : e.path, size: e.size ?? 0 };
    entries.push(entry);
    // Wildcard characters would make 7-Zip extract more than the name asked for.
    if (e.folder || e.encrypted || /[*?]/.test(e.path)) continue;
    if (e.size === null || Number.isNaN(e.size)) {
      truncated ??= `${e.path}: uncompressed size unknown, not unpacked`;
      continue;
    }
    if (!limits.budget.takeBytes(e.size, limits.maxArchiveBytes)) {
      truncated ??= `more than ${limits.maxArchiveBytes} uncompressed bytes`;
      continue;
    }
    wanted.push(entry);
  }
  if (wanted.length > 0) {
    output.length = 0;
    sz.FS.writeFile("/list.txt", wanted.map((e) => e.name).join("\n"));
    run(sz, output, ["x", "-y", "-sccUTF-8", "-scsUTF-8", "-pLOUPE", `-o${OUT}`, ARCHIVE, "-i@/list.txt"]);
    for (const e of wanted) {
      try {
        const data = sz.FS.readFile(`${OUT}/${e.name}`);
        e.bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      } catch {
        // Not written (a damaged block): listed without its text.
      }
    }
  }
  return { entries, truncated };
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
