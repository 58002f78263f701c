/**
 * Time stamps and ids as the store writes them: ISO 8601 UTC text, which sorts the same on SQLite
 * and PostgreSQL, and random UUIDs generated here rather than by either database.
 */
import { randomUUID } from "node:crypto";

/** ISO 8601 UTC with milliseconds: sorts as text on both databases. */
export const nowIso = (): string => new Date().toISOString();

export const newId = (): string => randomUUID();

/** Seconds precision, as events report first/last seen. */
export function toSecondsIso(value: string | Date): string {
  const d = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) throw new Error(`not a date: ${String(value)}`);
  return `${d.toISOString().slice(0, 19)}Z`;
}
