/**
 * What one `./loupe doctor` check reports. A check never throws: whatever goes wrong while checking
 * is itself the finding, so one broken part never hides the others.
 */
export type Status = "ok" | "warn" | "error";

export interface CheckResult {
  check: string;
  status: Status;
  detail: string;
  /** What to do about a warning or an error (absent when ok). */
  fix?: string;
}

export const ok = (check: string, detail: string): CheckResult => ({ check, status: "ok", detail });

export const warn = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  status: "warn",
  detail,
  fix,
});

export const error = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  status: "error",
  detail,
  fix,
});

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
