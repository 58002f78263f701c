/**
 * Encrypted archive entries (ZIP ZipCrypto and WinZip AES, 7z AES) opened with 7-Zip and
 * the extraction's keyring. Each closed entry in turn is tried with the passwords not yet tried
 * on it; a password that opens one is then tried on all the others at once (archives use one
 * password for everything, mostly): the usual case costs passwords + entries tries, and the
 * keyring's bound and the budget's time stop the worst case. An entry counts as opened when
 * 7-Zip reports no error for it and wrote its whole size.
 */
import type { SevenZipModule } from "7z-wasm";
import type { Limits } from "../budget.ts";
import type { ArchiveEntry } from "./entries.ts";

/** Entries per 7-Zip run: the time is checked between runs. */
const CHUNK = 256;

export interface SevenZipRunner {
  /** The archive's path in the module's file system. */
  archive: string;
  /** What the last run printed. */
  output: string[];
  /**
   * Runs 7-Zip with `args` after `prepare` wrote its input files, and gives the module that ran.
   * A module is replaced after some runs: one module run many times ends in a memory fault.
   */
  exec(args: string[], prepare: (fs: SevenZipModule["FS"]) => void): Promise<SevenZipModule>;
}

/** Names 7-Zip reported an error for ("ERROR: Wrong password : a.txt"). */
function failedNames(output: string[]): Set<string> {
  const failed = new Set<string>();
  for (const line of output) {
    const at = line.indexOf(" : ");
    if (line.startsWith("ERROR:") && at > 0) failed.add(line.slice(at + 3));
  }
  return failed;
}

let runs = 0;

/** Extracts `entries` with `password`; returns those that opened (their bytes and password set). */
async function extractWith(
  z: SevenZipRunner,
  entries: ArchiveEntry[],
  password: string,
): Promise<ArchiveEntry[]> {
  const out = `/unlocked${runs++}`;
  const list = `/locked${runs}.txt`;
  z.output.length = 0;
  const sz = await z.exec(
    ["x", "-y", "-sccUTF-8", "-scsUTF-8", `-p${password}`, `-o${out}`, z.archive, `-i@${list}`],
    (fs) => fs.writeFile(list, entries.map((e) => e.name).join("\n")),
  );
  const failed = failedNames(z.output);
  const opened: ArchiveEntry[] = [];
  for (const e of entries) {
    const file = `${out}/${e.name}`;
    try {
      const data = sz.FS.readFile(file);
      sz.FS.unlink(file);
      if (failed.has(e.name) || data.byteLength !== e.size) continue;
      e.bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      e.password = password;
      opened.push(e);
    } catch {
      // Not written: not opened.
    }
  }
  return opened;
}

/** Tries `password` on every closed entry, chunk by chunk, within the tries and the time. */
async function tryOnAll(
  z: SevenZipRunner,
  closed: ArchiveEntry[],
  password: string,
  limits: Limits,
  tried: Map<ArchiveEntry, Set<string>>,
): Promise<boolean> {
  for (let i = 0; i < closed.length; i += CHUNK) {
    const chunk = closed.slice(i, i + CHUNK).filter((e) => !tried.get(e)?.has(password));
    if (chunk.length === 0) continue;
    if (!limits.budget.hasTime() || !limits.keyring?.take(chunk.length, limits.maxPasswordTries ?? 0))
      return false;
    for (const e of chunk) tried.get(e)?.add(password);
    await extractWith(z, chunk, password);
  }
  return true;
}

/** Opens what it can of `locked` (entries listed as encrypted, their bytes reserved in the budget). */
export async function unlockEntries(
  z: SevenZipRunner,
  locked: ArchiveEntry[],
  limits: Limits,
  first?: string,
): Promise<string | null> {
  const ring = limits.keyring;
  if (!ring || locked.length === 0) return null;
  const passwords = [...new Set([...(first ? [first] : []), ...ring.list])];
  const tried = new Map(locked.map((e) => [e, new Set<string>()]));
  for (const target of locked) {
    if (target.bytes) continue;
    for (const password of passwords) {
      if (tried.get(target)?.has(password)) continue;
      if (!limits.budget.hasTime() || !ring.take(1, limits.maxPasswordTries ?? 0)) return stopReason(limits);
      tried.get(target)?.add(password);
      if ((await extractWith(z, [target], password)).length === 0) continue;
      const closed = locked.filter((e) => !e.bytes);
      if (!(await tryOnAll(z, closed, password, limits, tried))) return stopReason(limits);
      break;
    }
  }
  return null;
}

function stopReason(limits: Limits): string {
  const exhausted = limits.keyring?.exhausted;
  return exhausted ? limits.budget.stop(exhausted) : (limits.budget.reason ?? "the time limit came near");
}
