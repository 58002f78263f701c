/**
 * Encrypted archive entries (ZIP ZipCrypto and WinZip AES, 7z AES) opened with 7-Zip and
 * the extraction's keyring. Entries that share a key form a group (a 7z block; a ZIP entry alone).
 * Each closed group in turn is tried with the passwords not yet tried on it; a password that opens
 * one is then tried on all the others at once (archives use one password for everything, mostly):
 * the usual case costs passwords + groups tries. A try on a 7z key also costs its key derivation
 * (2^NumCyclesPower SHA-256 rounds), charged to the budget's key rounds once per password, group
 * and 7-Zip module (the module keeps derived keys). An entry counts as opened when 7-Zip reports
 * no error for it and wrote its whole size.
 */
import type { SevenZipModule } from "7z-wasm";
import type { Limits } from "../budget.ts";
import type { ArchiveEntry } from "./entries.ts";

/** Entries per 7-Zip run: the time is checked between runs. */
const CHUNK = 256;

/** What opening one entry costs: the group whose key it shares, and the rounds to derive that key. */
export interface EntryKey {
  group: string;
  rounds: number;
}

export interface SevenZipRunner {
  /** The archive's path in the module's file system. */
  archive: string;
  /** What the last run printed. */
  output: string[];
  /**
   * Runs 7-Zip with `args` after `prepare` wrote its input files; gives the module that ran and
   * 7-Zip's exit code (-1 when it stopped on an exception; that module is not run again).
   * A module is replaced after some runs: one module run many times ends in a memory fault.
   */
  exec(
    args: string[],
    prepare: (fs: SevenZipModule["FS"]) => void,
  ): Promise<{ sz: SevenZipModule; code: number }>;
  /** Rounds the next run of `password` on keys `keys` costs (keys the module derived before are free). */
  cost(password: string, keys: Iterable<EntryKey>): number;
  /** The keys the last run derived with `password`. */
  derived(password: string, keys: Iterable<EntryKey>): void;
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
  const { sz } = await z.exec(
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

/** One unlock of one archive: its entries' keys, the tries made, and why it stopped. */
class Attempt {
  readonly tried = new Map<string, Set<string>>();
  stopped: string | null = null;
  readonly z: SevenZipRunner;
  readonly limits: Limits;
  readonly keyOf: (e: ArchiveEntry) => EntryKey;

  constructor(z: SevenZipRunner, limits: Limits, keyOf: (e: ArchiveEntry) => EntryKey) {
    this.z = z;
    this.limits = limits;
    this.keyOf = keyOf;
  }

  keys(entries: ArchiveEntry[]): EntryKey[] {
    const byGroup = new Map(entries.map((e) => [this.keyOf(e).group, this.keyOf(e)]));
    return [...byGroup.values()];
  }

  /** Tries `password` on `entries` (not tried with it yet) if the tries, rounds and time allow. */
  async tryOn(entries: ArchiveEntry[], password: string): Promise<ArchiveEntry[] | null> {
    const fresh = entries.filter((e) => !this.tried.get(this.keyOf(e).group)?.has(password));
    if (fresh.length === 0) return [];
    const keys = this.keys(fresh);
    const { budget, keyring } = this.limits;
    if (!budget.hasTime() || !keyring?.take(keys.length, this.limits.maxPasswordTries ?? 0)) {
      this.stopped = keyring?.exhausted ?? budget.reason ?? "the time limit came near";
      return null;
    }
    if (!budget.takeKeyRounds(this.z.cost(password, keys))) {
      this.stopped = `more than ${this.limits.maxKeyRounds} key-derivation rounds spent on passwords`;
      return null;
    }
    for (const k of keys) {
      if (!this.tried.has(k.group)) this.tried.set(k.group, new Set());
      this.tried.get(k.group)?.add(password);
    }
    const opened = await extractWith(this.z, fresh, password);
    this.z.derived(password, keys);
    return opened;
  }

  /** Tries `password` on every closed entry, chunk by chunk; false once a bound stopped it. */
  async tryOnAll(locked: ArchiveEntry[], password: string): Promise<boolean> {
    const closed = locked.filter((e) => !e.bytes);
    for (let i = 0; i < closed.length; i += CHUNK) {
      if ((await this.tryOn(closed.slice(i, i + CHUNK), password)) === null) return false;
    }
    return true;
  }
}

/**
 * Opens what it can of `locked` (entries listed as encrypted, their bytes reserved in the budget);
 * `keyOf` says which entries share a key and what deriving it costs. Returns why it stopped early.
 */
export async function unlockEntries(
  z: SevenZipRunner,
  locked: ArchiveEntry[],
  limits: Limits,
  first?: string,
  keyOf: (e: ArchiveEntry) => EntryKey = (e) => ({ group: e.name, rounds: 0 }),
): Promise<string | null> {
  const ring = limits.keyring;
  if (!ring || locked.length === 0) return null;
  const passwords = [...new Set([...(first ? [first] : []), ...ring.list])];
  const attempt = new Attempt(z, limits, keyOf);
  for (const target of locked) {
    if (target.bytes) continue;
    const group = locked.filter((e) => !e.bytes && keyOf(e).group === keyOf(target).group);
    for (const password of passwords) {
      const opened = await attempt.tryOn(group, password);
      if (opened === null) return limits.budget.stop(attempt.stopped ?? "stopped");
      if (opened.length === 0) continue;
      if (!(await attempt.tryOnAll(locked, password)))
        return limits.budget.stop(attempt.stopped ?? "stopped");
      break;
    }
  }
  return null;
}
