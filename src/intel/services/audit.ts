/**
 * The audit log: every change an admin makes to users, API keys, vendor credentials and subjects'
 * markings, stored and exportable. Details name what changed, never a secret (a key by its prefix, a set by its id).
 */
import { type AuditRow, countAudit, insertAudit, selectAudit } from "../store/audit.ts";
import type { WithStore } from "./index.ts";

export type { AuditRow };

export const AUDIT_ACTIONS = [
  "user.create",
  "user.deactivate",
  "user.reactivate",
  "user.password",
  "user.unlock",
  "key.create",
  "key.revoke",
  "credentials.add",
  "credentials.remove",
  "credentials.test",
  "marking.set",
  "analysis.upload",
  "analysis.enrich",
  "analysis.share",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function recordAudit(
  { store }: WithStore,
  actor: string,
  action: AuditAction,
  target: string,
  detail = "",
): Promise<void> {
  return insertAudit(store.db, { actor, action, target, detail });
}

export async function auditPage({ store }: WithStore, o: { limit: number; offset: number; action?: string }) {
  const { db } = store;
  return { entries: await selectAudit(db, o), total: await countAudit(db) };
}

const CSV_COLUMNS = ["id", "at", "actor", "action", "target", "detail"] as const;

/**
 * A line a spreadsheet may read as a formula: = + - @ | (or their fullwidth forms, which some
 * spreadsheets fold to ASCII) after any leading spaces, or a tab or CR first.
 */
const FORMULA_START = /^(?:[\s\u00a0\u3000]*[=+\-@|\uff1d\uff0b\uff0d\uff20\uff5c]|[\t\r])/;

/** `text` with ' before every line that could start a formula: each line, as an importer may split cells on newlines. */
export function neutraliseFormulas(text: string): string {
  return text
    .split(/(\r\n|\r|\n)/)
    .map((part, i) => (i % 2 === 0 && FORMULA_START.test(part) ? `'${part}` : part))
    .join("");
}

/** RFC 4180 CSV whose cells a spreadsheet never runs (neutraliseFormulas). */
export function auditCsv(rows: AuditRow[]): string {
  const cell = (v: string | number) => {
    const s = neutraliseFormulas(String(v));
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [CSV_COLUMNS.join(","), ...rows.map((r) => CSV_COLUMNS.map((c) => cell(r[c])).join(","))]
    .join("\r\n")
    .concat("\r\n");
}
