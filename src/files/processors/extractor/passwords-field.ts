/** The `passwords` form field: one password per line, counted and measured before any work. */
import { Type } from "typebox";
import { badRequest } from "../../../common/errors.ts";
import { MAX_PASSWORD_LENGTH } from "./passwords.ts";

/** The non-empty lines of `raw`, stopping once there are more than `max` (a 10 MB field is not split whole). */
function lines(raw: string, max: number): string[] {
  const found: string[] = [];
  let start = 0;
  while (start <= raw.length && found.length <= max) {
    const end = raw.indexOf("\n", start);
    const stop = end === -1 ? raw.length : end;
    const line = raw.slice(start, stop > start && raw[stop - 1] === "\r" ? stop - 1 : stop);
    if (line !== "") found.push(line);
    start = stop + 1;
  }
  return found;
}

export function passwordsField(raw: string | undefined, max: number): string[] {
  if (raw === undefined) return [];
  const passwords = lines(raw, max);
  if (passwords.length > max) {
    throw badRequest(
      "too_many_passwords",
      `The field "passwords" holds more than ${max} passwords (FILES_ARCHIVE_MAX_PASSWORDS).`,
    );
  }
  if (passwords.some((p) => p.length > MAX_PASSWORD_LENGTH)) {
    throw badRequest(
      "invalid_field",
      `A password in "passwords" is longer than ${MAX_PASSWORD_LENGTH} characters.`,
    );
  }
  return [...new Set(passwords)];
}

/** The field's schema, shared by the processors that extract (extractor, iocs). */
export const passwordsFieldSchema = Type.Optional(
  Type.String({
    description:
      "Passwords to try on encrypted ZIP and 7z entries, one per line, before the configured ones (FILES_ARCHIVE_PASSWORDS). Each encrypted entry says `password_used`, or `encrypted: true, opened: false`.",
  }),
);
