/**
 * Archives (ZIP, TAR, GZ): the entry list, and the text of contained documents, recursively,
 * within a depth and the extraction's one budget (entries, uncompressed bytes, characters, time)
 * shared by every level — a zip bomb ends in a partial result that says so, never in an
 * exhausted process.
 */
import { createGunzip } from "node:zlib";
import { type Unzipped, unzipSync } from "fflate";
import type { Limits } from "../budget.ts";
import type { Extracted, Recurse } from "../result.ts";
import type { ArchiveEntry, ArchiveListing } from "./entries.ts";
import { unlockZipEntries } from "./sevenzip.ts";
import { encryptedZipEntries } from "./zip-encrypted.ts";

export type { ArchiveEntry, ArchiveListing } from "./entries.ts";

/**
 * Reads a ZIP's entries, refusing to inflate past the limits (sizes come from the central
 * directory). Encrypted entries are listed and left to 7-Zip (`listing.unlock`): fflate cannot decrypt.
 */
export function readZip(bytes: Buffer, limits: Limits): { files: Unzipped; listing: ArchiveListing } {
  const entries: ArchiveEntry[] = [];
  let truncated: string | null = null;
  const { budget } = limits;
  const encrypted = encryptedZipEntries(bytes, limits.maxArchiveEntries);
  const files = unzipSync(new Uint8Array(bytes), {
    filter: (f) => {
      if (!budget.takeEntry(limits.maxArchiveEntries)) {
        truncated ??= `more than ${limits.maxArchiveEntries} entries`;
        return false;
      }
      const entry: ArchiveEntry = { name: f.name, size: f.originalSize };
      entries.push(entry);
      if (!budget.takeBytes(f.originalSize, limits.maxArchiveBytes)) {
        truncated ??= `more than ${limits.maxArchiveBytes} uncompressed bytes`;
        return false;
      }
      if (encrypted.has(f.name)) entry.encrypted = true;
      return !entry.encrypted;
    },
  });
  for (const e of entries) {
    const data = files[e.name];
    if (data) e.bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  const locked = entries.filter((e) => e.encrypted);
  const unlock = locked.length ? () => unlockZipEntries(bytes, locked, limits) : undefined;
  return { files, listing: { entries, truncated, ...(unlock ? { unlock } : {}) } };
}

export function readTar(bytes: Buffer, limits: Limits): ArchiveListing {
  const entries: ArchiveEntry[] = [];
  let offset = 0;
  let truncated: string | null = null;
  while (offset + 512 <= bytes.length) {
    const header = bytes.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.toString("utf8", 0, 100).replace(/\0.*$/s, "");
    const prefix = header.toString("utf8", 345, 500).replace(/\0.*$/s, "");
    const size =
      Number.parseInt(header.toString("ascii", 124, 136).replace(/\0.*$/s, "").trim() || "0", 8) || 0;
    const kind = String.fromCharCode(header[156] ?? 48);
    const full = prefix ? `${prefix}/${name}` : name;
    if (!limits.budget.takeEntry(limits.maxArchiveEntries)) {
      truncated = `more than ${limits.maxArchiveEntries} entries`;
      break;
    }
    const entry: ArchiveEntry = { name: full, size };
    if ((kind === "0" || kind === "\0") && limits.budget.takeBytes(size, limits.maxArchiveBytes)) {
      entry.bytes = bytes.subarray(offset + 512, offset + 512 + size);
    } else if (kind === "0" || kind === "\0") {
      truncated ??= `more than ${limits.maxArchiveBytes} uncompressed bytes`;
    }
    entries.push(entry);
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return { entries, truncated };
}

/**
 * Gunzips (every member, as gunzip does) up to the bytes left in the budget: past it the stream is
 * cut and its head kept, so padding put after the content cannot hide it from the text and the
 * indicators. zlib's own stream: `gunzipSync`'s `maxOutputLength` throws the head away.
 */
export async function gunzipLimited(
  bytes: Buffer,
  limits: Limits,
): Promise<{ data: Buffer; truncated: string | null }> {
  const allowed = limits.budget.bytesLeft;
  const chunks: Buffer[] = [];
  let total = 0;
  const inflater = createGunzip();
  const done = new Promise<void>((resolve, reject) => {
    inflater.on("data", (chunk: Buffer) => {
      if (total < allowed) chunks.push(chunk.subarray(0, allowed - total));
      total += chunk.length;
      if (total > allowed) inflater.destroy();
    });
    inflater.on("end", resolve);
    inflater.on("close", resolve);
    inflater.on("error", reject);
  });
  inflater.end(bytes);
  await done;
  const data = Buffer.concat(chunks);
  limits.budget.takeBytes(data.length, limits.maxArchiveBytes);
  return {
    data,
    truncated: total > allowed ? limits.budget.cutStream(data.length, limits.maxArchiveBytes) : null,
  };
}

/** What an encrypted entry says: the password that opened it, or that none did. */
function lockFacts(e: ArchiveEntry): Record<string, unknown> {
  if (!e.encrypted) return {};
  return e.password !== undefined
    ? { encrypted: true, opened: true, password_used: e.password }
    : { encrypted: true, opened: false, ...(e.notTried ? { reason: e.notTried } : {}) };
}

/** Lists the entries and extracts the text of each one that can be read, one level deeper. */
export async function describeArchive(
  listing: ArchiveListing,
  depth: number,
  limits: Limits,
  recurse: Recurse,
): Promise<Extracted> {
  const texts: string[] = [];
  const entries: Array<Record<string, unknown>> = [];
  let truncated = listing.truncated;
  if (listing.unlock) truncated ??= await listing.unlock();
  // Entries left out of the listing (past the entry count) are only known as a count.
  if (listing.truncated) recurse.cut?.(listing.truncated);
  for (const e of listing.entries) {
    const info: Record<string, unknown> = { name: e.name, size: e.size, ...lockFacts(e) };
    const why = e.name.endsWith("/") ? undefined : await readEntry(e, depth, limits, recurse, texts, info);
    if (why) truncated ??= why;
    entries.push(info);
  }
  return {
    text: texts.join("\n\n"),
    extra: { archive: { entry_count: listing.entries.length, entries, ...(truncated ? { truncated } : {}) } },
  };
}

/** Reads one entry one level deeper (its type and text into `info` and `texts`); why it was not, if so. */
async function readEntry(
  e: ArchiveEntry,
  depth: number,
  limits: Limits,
  recurse: Recurse,
  texts: string[],
  info: Record<string, unknown>,
): Promise<string | null | undefined> {
  const { budget } = limits;
  if (!e.bytes) {
    if (e.encrypted) recurse.skipped?.(e.name, e.size, "encrypted", "no password opened it");
    else recurse.skipped?.(e.name, e.size, "limit", budget.reason ?? "not read: over a limit");
    return undefined;
  }
  let stopped: string | null = null;
  if (depth + 1 > limits.maxDepth) stopped = budget.stop(`nesting deeper than ${limits.maxDepth}`);
  else if (budget.charsLeft <= 0 || !budget.hasTime()) stopped = budget.reason; // the rest is listed, not read
  if (stopped !== null) {
    recurse.skipped?.(e.name, e.size, "limit", stopped ?? "not read: over a limit");
    return stopped;
  }
  try {
    const inner = await recurse(e.bytes, e.name, depth + 1);
    info.type = inner.type;
    if (inner.text.trim()) texts.push(`── ${e.name} ──\n${inner.text}`);
    const innerArchive = inner.extra.archive as { truncated?: string } | undefined;
    return innerArchive?.truncated;
  } catch (err) {
    info.error = err instanceof Error ? err.message : String(err);
    return undefined;
  }
}
