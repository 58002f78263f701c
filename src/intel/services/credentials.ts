/**
 * Vendor credentials: one validation, one masking rule and one meaning of "configured" for the
 * panel, the CLI and the API. A set holds exactly the fields its connector names; a `url` field is
 * an http(s) address and is shown whole, every other field is a secret shown by 4 characters.
 */
import type { IntelConfig } from "../config.ts";
import type { Connector } from "../connectors/types.ts";
import { checkCredentials, isUsable } from "../domain/fanout.ts";
import { placeholderProblem } from "../domain/placeholders.ts";
import type { Credentials } from "../model/credentials.ts";
import {
  type CredentialCheck,
  credentialChecks,
  forgetCredentialCheck,
  recordCredentialCheck,
} from "../store/credential-checks.ts";
import {
  addCredentials,
  configuredVendors,
  enableCredentials,
  listCredentials,
  removeCredentials,
} from "../store/credentials.ts";
import type { WithStore } from "./index.ts";

export class CredentialsError extends Error {}

/** Why these fields cannot be a credential set of this connector, or undefined when they can. */
export function credentialProblem(connector: Connector, fields: Credentials): string | undefined {
  const wanted = connector.credentialFields;
  const missing = wanted.filter((f) => !fields[f]);
  if (missing.length > 0) return `${connector.vendor} needs ${missing.join(", ")}.`;
  const unknown = Object.keys(fields).filter((f) => !wanted.includes(f));
  if (unknown.length > 0)
    return `${connector.vendor} takes ${wanted.join(", ") || "no credentials"}, not ${unknown.join(", ")}.`;
  if (fields.url !== undefined && !/^https?:\/\/[^\s/]+/i.test(fields.url))
    return "url must be an http(s) address.";
  for (const [field, value] of Object.entries(fields)) {
    const placeholder = field === "url" ? undefined : placeholderProblem(field, value);
    if (placeholder) return placeholder;
  }
  return undefined;
}

export async function addCredentialSet(
  { store }: WithStore,
  connector: Connector,
  fields: Credentials,
): Promise<number> {
  const problem = credentialProblem(connector, fields);
  if (problem) throw new CredentialsError(problem);
  return addCredentials(store.db, connector.id, fields);
}

/** Addresses are shown whole; secrets by their first 4 characters. */
export function maskCredentials(fields: Credentials): Credentials {
  return Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k, k === "url" ? v : `${v.slice(0, 4)}…`]),
  );
}

export interface CredentialSetView {
  id: number;
  vendor: string;
  masked: Credentials;
  created_at: string;
  last_used_at: string | null;
  /** The set's own quota (null: the vendor's; 0: none). */
  per_minute: number | null;
  per_day: number | null;
  /** Set when the vendor refused the key: the set is out of rotation until re-tested or re-enabled. */
  disabled_reason: string | null;
  failed_at: string | null;
  /** The set's last test (the panel's Test button), or null when it was never tested. */
  last_check: CredentialCheck | null;
}

export type { CredentialCheck };

/** Every set (of one vendor, when named), secrets masked. */
export async function listCredentialSets(
  { store }: WithStore,
  vendor?: string,
): Promise<CredentialSetView[]> {
  const { db } = store;
  const checks = await credentialChecks(db);
  return (await listCredentials(db, vendor)).map((s) => ({
    id: s.id,
    vendor: s.vendor,
    masked: maskCredentials(s.fields),
    created_at: s.created_at,
    last_used_at: s.last_used_at,
    per_minute: s.per_minute,
    per_day: s.per_day,
    disabled_reason: s.disabled_reason,
    failed_at: s.failed_at,
    last_check: checks.get(s.id) ?? null,
  }));
}

/** A set whose last test failed: the vendor refused it (or could not be reached) when last asked. */
export const failedItsTest = (set: CredentialSetView): boolean => set.last_check?.ok === false;

/** The fields of one set, unmasked: only to test them against the vendor. */
export async function credentialSetFields({ store }: WithStore, vendor: string, id: number) {
  return (await listCredentials(store.db, vendor)).find((s) => s.id === id)?.fields;
}

/** Removes set `id`; the vendor it belonged to, read from the set itself (undefined: no such set). */
export async function removeCredentialSet({ store }: WithStore, id: number): Promise<string | undefined> {
  const { db } = store;
  const vendor = await removeCredentials(db, id);
  if (vendor !== undefined) await forgetCredentialCheck(db, id);
  return vendor;
}

/** The connectors that can be asked now. */
export async function usableConnectors({ store }: WithStore, connectors: Connector[]): Promise<Connector[]> {
  const withSets = await configuredVendors(store.db);
  return connectors.filter((c) => isUsable(c, withSets));
}

/** One harmless call with these credentials, no retries: an answer in seconds saying what the vendor said. */
export async function testCredentials(
  connector: Connector,
  fields: Credentials,
  config: IntelConfig,
): Promise<{ ok: boolean; text: string }> {
  const outcome = await checkCredentials(connector, fields, { ...config, vendorRetries: 0 });
  const verdict = outcome.ok ? "passed" : "failed";
  return {
    ok: outcome.ok,
    text: `${connector.vendor} test ${verdict} in ${outcome.ms} ms: ${outcome.message}`,
  };
}

/**
 * Tests a saved set and keeps the outcome as its last test; a set that passes goes back in
 * rotation (it may have been taken out when the vendor refused its key). Undefined when there is
 * no such set.
 */
export async function testCredentialSet(
  { store }: WithStore,
  connector: Connector,
  id: number,
  config: IntelConfig,
): Promise<{ ok: boolean; text: string; reenabled: boolean } | undefined> {
  const { db } = store;
  const set = (await listCredentials(db, connector.id)).find((s) => s.id === id);
  if (!set) return undefined;
  const outcome = await testCredentials(connector, set.fields, config);
  await recordCredentialCheck(db, id, { ok: outcome.ok, message: outcome.text });
  const reenabled = outcome.ok && set.disabled_reason !== null && (await enableCredentials(db, id));
  return { ...outcome, text: reenabled ? `${outcome.text} Back in rotation.` : outcome.text, reenabled };
}

/** Tests credentials before they are saved: the same harmless call, and nothing is stored. */
export async function tryCredentials(
  connector: Connector,
  fields: Credentials,
  config: IntelConfig,
): Promise<{ ok: boolean; text: string }> {
  const problem = credentialProblem(connector, fields);
  if (problem) throw new CredentialsError(problem);
  return testCredentials(connector, fields, config);
}
