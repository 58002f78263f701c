/**
 * Deterministic identifiers for exports: the same graph exports to the same ids, so a consumer that
 * imports twice merges instead of duplicating.
 */
import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every level: RFC 8785 (JCS) for the strings, integers and
 * objects exports hash (JSON.stringify already writes strings and integers as JCS does).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** RFC 4122 name-based UUID, version 5 (SHA-1). */
export function uuidV5(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replaceAll("-", ""), "hex");
  const bytes = createHash("sha1").update(ns).update(name, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Loupe's own namespace for the ids of objects that are not STIX observables. */
export const LOUPE_NAMESPACE = "6c6f7570-652d-4578-a06f-727473000001";

/** A stable id for anything Loupe names: a kind and the parts that make it what it is. */
export const loupeUuid = (...parts: string[]): string => uuidV5(LOUPE_NAMESPACE, canonicalJson(parts));

/**
 * A stable id shaped as a version 4 UUID, for formats whose readers accept only version 4
 * (Colander's models): a name-based UUID whose version bits say 4.
 */
export function stableUuidV4(...parts: string[]): string {
  const id = loupeUuid(...parts);
  return `${id.slice(0, 14)}4${id.slice(15)}`;
}
