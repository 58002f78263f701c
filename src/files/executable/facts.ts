/** The shape of `extra.executable`, and the helpers that read fact values (text) into it. */
import type { FactRecord } from "./lines.ts";

export type ExecutableFormat = "pe" | "elf" | "macho" | "lnk" | "dex";

export interface Section {
  name: string;
  offset: number | null;
  size: number | null;
  virtual_address: number | null;
  virtual_size: number | null;
  /** Shannon entropy of the section's bytes in the file (bits per byte), null without bytes. */
  entropy: number | null;
  flags: number | null;
}

export interface ImportedLibrary {
  library: string | null;
  functions: string[];
}

export interface Certificate {
  subject: string | null;
  issuer: string | null;
  serial: string | null;
  not_before: string | null;
  not_after: string | null;
  verified: boolean | null;
}

export interface Signatures {
  present: boolean;
  /** PE: at least one Authenticode signature verified; null where the format's check is not made. */
  valid: boolean | null;
  certificates: Certificate[];
}

export interface ExecutableFacts {
  format: ExecutableFormat;
  architecture: string | null;
  machine: number | null;
  entry_point: number | null;
  compile_time: string | null;
  sections: Section[];
  imports: ImportedLibrary[];
  exports: string[];
  signatures: Signatures | null;
  resources: Record<string, string | number | null>[];
  overlay: { offset: number; size: number } | null;
  packer_hints: string[];
  /** Lists cut at FILES_EXECUTABLE_MAX_ITEMS (their full length is in `counts`). */
  truncated: string[];
  counts: Record<string, number>;
  /** The format's own facts (PE subsystem, ELF type, LNK paths, DEX classes…). */
  details: Record<string, unknown>;
}

export const text = (r: FactRecord, key: string): string | null => {
  const v = r[key];
  return typeof v === "string" ? v : null;
};

export const num = (r: FactRecord, key: string): number | null => {
  const v = text(r, key);
  if (v === null || v === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

export const bool = (r: FactRecord, key: string): boolean | null => {
  const v = text(r, key);
  return v === "true" ? true : v === "false" ? false : null;
};

export const items = (r: FactRecord, key: string): FactRecord[] => {
  const v = r[key];
  return Array.isArray(v) ? v : [];
};

/** A Unix time in seconds as ISO 8601; null for 0 or out of range. */
export const unixTime = (seconds: number | null): string | null => {
  if (seconds === null || seconds <= 0) return null;
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
};

/** Sections whose bytes look compressed or encrypted (above 7.2 bits per byte, at least 512 bytes). */
export function highEntropyHints(sections: Section[]): string[] {
  return sections
    .filter((s) => s.entropy !== null && s.entropy > 7.2 && (s.size ?? 0) >= 512)
    .map((s) => `high entropy section "${s.name}" (${s.entropy})`);
}

/** Which lists the rules cut at `maxItems`, from each list's full length. */
export function cutLists(counts: Record<string, number>, maxItems: number): string[] {
  return Object.entries(counts)
    .filter(([, n]) => n > maxItems)
    .map(([name]) => name);
}

export function emptyFacts(format: ExecutableFormat): ExecutableFacts {
  return {
    format,
    architecture: null,
    machine: null,
    entry_point: null,
    compile_time: null,
    sections: [],
    imports: [],
    exports: [],
    signatures: null,
    resources: [],
    overlay: null,
    packer_hints: [],
    truncated: [],
    counts: {},
    details: {},
  };
}
