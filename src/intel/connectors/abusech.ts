/**
 * What abuse.ch's three APIs (MalwareBazaar, URLhaus, ThreatFox) share: the `Auth-Key` header,
 * their "UTC" dates and `query_status`, where "no result" is null and any other status an error.
 */
import { type EntityRef, type EventDraft, VendorError } from "./types.ts";

export const auth = (c: Record<string, string>) => ({ "Auth-Key": c.api_key ?? "" });

/** "2026-10-02 08:15:00 UTC" → ISO 8601. */
export function abuseDate(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.trim()) return undefined;
  const d = new Date(`${value.replace(" UTC", "").trim().replace(" ", "T")}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Maps abuse.ch's statuses: ok → the data; "no result" kinds → null; anything else is an error. */
export function readStatus(body: unknown, notFound: string[]): unknown {
  const status = (body as { query_status?: string } | null)?.query_status;
  if (status === "ok") return body;
  if (status && notFound.includes(status)) return null;
  if (status && /auth|key/i.test(status))
    throw new VendorError("invalid_credentials", `abuse.ch refused the key (${status})`);
  throw new VendorError("bad_response", `abuse.ch answered query_status ${status ?? "missing"}`);
}

export const observable = (type: string) => ({ superType: "OBSERVABLE", type });
export const threatRef = (name: string): EntityRef => ({ superType: "THREAT", type: "MALWARE", name });

/** The abuse.ch sighting of a subject (first and last seen), when the vendor dated it. */
export function sighting(
  name: string,
  first: string | undefined,
  last: string | undefined,
  involved: EntityRef,
) {
  const events: EventDraft[] = [];
  if (first) events.push({ type: "HIT", name, firstSeen: first, lastSeen: last ?? first, involved });
  return events;
}
