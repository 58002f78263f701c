/**
 * What a vendor answered, kept for an admin to read: pretty-printed JSON with every secret taken
 * out — the values of the credential set that was used, wherever they appear, and every value under
 * a key named like a secret — then cut to a size limit (the part kept says it was cut).
 */
import type { Credentials } from "../model/credentials.ts";

export interface RawAnswer {
  /** Pretty-printed, redacted JSON, at most the size limit (in UTF-8 bytes). */
  body: string;
  /** Size in bytes of the whole redacted answer before any cut. */
  size: number;
  truncated: boolean;
}

export const REDACTED = "[redacted]";

/** Keys whose values are secrets whatever they hold: api keys, tokens, passwords, secrets, authorization headers. */
const SECRET_KEY = /api[-_ ]?key|token|passw(or)?d|secret|authori[sz]ation/i;

/** Values this short are not searched for inside strings: they would blank out ordinary words. */
const SHORTEST_SECRET = 4;

/** Redacts and pretty-prints a vendor's parsed answer, cut to `maxBytes`; undefined when `maxBytes` is 0. */
export function keepRawAnswer(
  raw: unknown,
  credentials: Credentials,
  maxBytes: number,
): RawAnswer | undefined {
  if (maxBytes <= 0) return undefined;
  let text: string;
  try {
    text = JSON.stringify(raw, redactSecretKeys, 2) ?? "null";
  } catch {
    // Nesting deeper than the engine's stack: the answer was read, but cannot be shown.
    text = JSON.stringify({ note: "the answer is nested too deeply to be shown" });
  }
  // The set's values go wherever they appear (values, keys, inside longer strings), as written
  // in the JSON text: escaped characters included.
  for (const [field, secret] of Object.entries(credentials)) {
    // A server address is not a secret (the panel shows it whole); it stays readable.
    if (field === "url" || secret.length < SHORTEST_SECRET) continue;
    for (const written of new Set([secret, JSON.stringify(secret).slice(1, -1)]))
      text = text.split(written).join(REDACTED);
  }
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return { body: text, size: bytes.length, truncated: false };
  // Cut on a character boundary: a multi-byte character is never split in two.
  const cut = new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, "");
  return { body: cut, size: bytes.length, truncated: true };
}

function redactSecretKeys(key: string, value: unknown): unknown {
  return key !== "" && value !== null && SECRET_KEY.test(key) ? REDACTED : value;
}
