/**
 * Archives (ZIP, TAR, GZ): the entry list, and the text of contained documents, recursively,
 * within a depth, an entry count and a total of uncompressed bytes — a zip bomb ends in a
 * partial result that says so, never in an exhausted process.
 */
import { gunzipSync } from "node:zlib";
import { type Unzipped, unzipSync } from "fflate";
import type { Extracted, ExtractLimits } from "../result.ts";

export interface ArchiveEntry {
  name: string;
  size: number;
  bytes?: Buffer;
}

export interface ArchiveListing {
  entries: ArchiveEntry[];
  truncated: string | null;
}

/** Reads a ZIP's entries, refusing to inflate past the limits (sizes come from the central directory). */
export function readZip(bytes: Buffer, limits: ExtractLimits): { files: Unzipped; listing: ArchiveListing } {
  const entries: ArchiveEntry[] = [];
  let total = 0;
  let truncated: string | null = null;
  const files = unzipSync(new Uint8Array(bytes), {
    filter: (f) => {
      if (entries.length >= limits.maxArchiveEntries) {
        truncated ??= `more than ${limits.maxArchiveEntries} entries`;
        return false;
      }
      entries.push({ name: f.name, size: f.originalSize });
      if (total + f.originalSize > limits.maxArchiveBytes) {
        truncated ??= `more than ${limits.maxArchiveBytes} uncompressed bytes`;
        return false;
      }
      total += f.originalSize;
      return true;
    },
  });
  for (const e of entries) {
    const data = files[e.name];
    if (data) e.bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  return { files, listing: { entries, truncated } };
}

export function readTar(bytes: Buffer, limits: ExtractLimits): ArchiveListing {
  const entries: ArchiveEntry[] = [];
  let offset = 0;
  let total = 0;
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
    if (entries.length >= limits.maxArchiveEntries) {
      truncated = `more than ${limits.maxArchiveEntries} entries`;
      break;
    }
    const entry: ArchiveEntry = { name: full, size };
    if ((kind === "0" || kind === "\0") && total + size <= limits.maxArchiveBytes) {
      entry.bytes = bytes.subarray(offset + 512, offset + 512 + size);
      total += size;
    } else if (kind === "0" || kind === "\0") {
      truncated ??= `more than ${limits.maxArchiveBytes} uncompressed bytes`;
    }
    entries.push(entry);
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return { entries, truncated };
}

export function gunzipLimited(
  bytes: Buffer,
  limits: ExtractLimits,
): { data: Buffer; truncated: string | null } {
  try {
    return { data: gunzipSync(bytes, { maxOutputLength: limits.maxArchiveBytes }), truncated: null };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      return { data: Buffer.alloc(0), truncated: `more than ${limits.maxArchiveBytes} uncompressed bytes` };
    }
    throw err;
  }
}

type Recurse = (bytes: Buffer, name: string, depth: number) => Promise<Extracted & { type: string }>;

/** Lists the entries and extracts the text of each one that can be read, one level deeper. */
export async function describeArchive(
  listing: ArchiveListing,
  depth: number,
  limits: ExtractLimits,
  recurse: Recurse,
): Promise<Extracted> {
  const texts: string[] = [];
  const entries: Array<Record<string, unknown>> = [];
  let truncated = listing.truncated;
  for (const e of listing.entries) {
    const info: Record<string, unknown> = { name: e.name, size: e.size };
    if (e.bytes && !e.name.endsWith("/")) {
      if (depth + 1 > limits.maxDepth) {
        truncated ??= `nesting deeper than ${limits.maxDepth}`;
      } else {
        try {
          const inner = await recurse(e.bytes, e.name, depth + 1);
          info.type = inner.type;
          if (inner.text.trim()) texts.push(`── ${e.name} ──\n${inner.text}`);
          const innerArchive = inner.extra.archive as { truncated?: string } | undefined;
          if (innerArchive?.truncated) truncated ??= innerArchive.truncated;
        } catch (err) {
          info.error = err instanceof Error ? err.message : String(err);
        }
      }
    }
    entries.push(info);
  }
  return {
    text: texts.join("\n\n"),
    extra: { archive: { entry_count: listing.entries.length, entries, ...(truncated ? { truncated } : {}) } },
  };
}
