/**
 * Files carried inside a document rather than an archive — PDF attachments, OOXML/ODF embedded
 * objects and VBA projects — read like archive members: each charged to the one budget (entries,
 * bytes), then extracted one level deeper through `recurse`, so each is a node of the tree.
 */
import type { Limits } from "../budget.ts";
import type { Recurse, Typed } from "../result.ts";
import { describeArchive } from "./archive.ts";
import type { ArchiveEntry, ArchiveListing } from "./entries.ts";

/** The children as a listing; those past the entry or byte budget are listed without their bytes. */
export function listedChildren(
  children: Array<{ name: string; bytes: Buffer }>,
  limits: Limits,
): ArchiveListing {
  const entries: ArchiveEntry[] = [];
  let truncated: string | null = null;
  for (const child of children) {
    if (!limits.budget.takeEntry(limits.maxArchiveEntries)) {
      truncated = `more than ${limits.maxArchiveEntries} entries`;
      break;
    }
    const entry: ArchiveEntry = { name: child.name, size: child.bytes.length };
    if (limits.budget.takeBytes(child.bytes.length, limits.maxArchiveBytes)) entry.bytes = child.bytes;
    else truncated ??= `more than ${limits.maxArchiveBytes} uncompressed bytes`;
    entries.push(entry);
  }
  return { entries, truncated };
}

/** Adds the children's text to `out` and lists them under `extra[namespace]`. */
export async function withChildren(
  out: Typed,
  listing: ArchiveListing,
  namespace: string,
  depth: number,
  limits: Limits,
  recurse: Recurse,
): Promise<Typed> {
  if (listing.entries.length === 0) return out;
  const described = await describeArchive(listing, depth, limits, recurse);
  const archive = described.extra.archive as { entries: unknown[]; truncated?: string };
  return {
    ...out,
    text: described.text.trim() ? `${out.text}\n\n${described.text}` : out.text,
    extra: {
      ...out.extra,
      [namespace]: {
        entries: archive.entries,
        ...(archive.truncated ? { truncated: archive.truncated } : {}),
      },
    },
  };
}
