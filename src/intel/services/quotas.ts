/**
 * Vendor quotas as the doors show them (`/api/modules/`, `/api/status/now/`, the panel): each
 * vendor's limits, where they come from, and the calls left per credential set and in all; and the
 * admin's levers on a set: its own quota, and putting a set the vendor refused back in rotation.
 */
import type { Kysely } from "kysely";
import type { Connector } from "../connectors/types.ts";
import {
  type Clock,
  QUOTA_WINDOWS,
  type QuotaConfig,
  remaining,
  setLimits,
  vendorQuota,
} from "../domain/quota.ts";
import { enableCredentials, listCredentials, setCredentialsQuota } from "../store/credentials.ts";
import { quotaUsage, usageOf } from "../store/quotas.ts";
import type { Database } from "../store/schema.ts";

type Db = Kysely<Database>;

export type { QuotaConfig };

export interface SetQuotaView {
  /** The credential set (0: a connector that needs no key). */
  id: number;
  per_minute: number | null;
  per_day: number | null;
  used_minute: number;
  used_day: number;
  remaining_minute: number | null;
  remaining_day: number | null;
  /** The vendor asked for no call before then (Retry-After, rate limit headers). */
  blocked_until: string | null;
  blocked_reason: string | null;
  /** Why the set is out of rotation (the vendor refused its key), and since when. */
  disabled_reason: string | null;
  failed_at: string | null;
}

export interface VendorQuotaView {
  policy: "wait" | "skip";
  /** The vendor-wide limits (null: none) and where they come from. */
  per_minute: number | null;
  per_day: number | null;
  origin: "preset" | "setting" | "none";
  source: string | null;
  window_seconds: { minute: number; day: number };
  /** Calls left now over every set in rotation (null: no limit). */
  remaining_minute: number | null;
  remaining_day: number | null;
  sets: SetQuotaView[];
}

/** The sum of the sets' calls left; null (no limit) when one set has none. */
function total(values: (number | null)[]): number | null {
  let sum = 0;
  for (const v of values) {
    if (v === null) return null;
    sum += v;
  }
  return sum;
}

/** Every connector's quota view, keyed by connector id. */
export async function vendorQuotas(deps: {
  store: { db: Db };
  connectors: Connector[];
  config: QuotaConfig;
  /** The quota clock (Date.now unless a test moves its own). */
  now?: Clock;
}): Promise<Map<string, VendorQuotaView>> {
  const { db } = deps.store;
  const at = (deps.now ?? Date.now)();
  const [usage, sets] = await Promise.all([quotaUsage(db, QUOTA_WINDOWS, { at }), listCredentials(db)]);
  const out = new Map<string, VendorQuotaView>();
  for (const c of deps.connectors) {
    const vendor = vendorQuota(c, deps.config);
    const own =
      c.credentialFields.length === 0
        ? [{ id: 0, per_minute: null, per_day: null, disabled_reason: null, failed_at: null }]
        : sets.filter((s) => s.vendor === c.id);
    const views = own.map((s): SetQuotaView => {
      const limits = setLimits(vendor, s);
      const used = usageOf(usage, { vendor: c.id, credentialSet: s.id });
      const left = remaining(limits, used);
      return {
        id: s.id,
        per_minute: limits.perMinute,
        per_day: limits.perDay,
        used_minute: used.usedMinute,
        used_day: used.usedDay,
        remaining_minute: left.minute,
        remaining_day: left.day,
        blocked_until: used.blockedUntil,
        blocked_reason: used.blockedReason,
        disabled_reason: s.disabled_reason,
        failed_at: s.failed_at,
      };
    });
    const inRotation = views.filter((v) => v.disabled_reason === null);
    out.set(c.id, {
      policy: vendor.policy,
      per_minute: vendor.perMinute,
      per_day: vendor.perDay,
      origin: vendor.origin,
      source: vendor.origin === "preset" ? (c.quota?.source ?? null) : null,
      window_seconds: { minute: QUOTA_WINDOWS.minuteMs / 1000, day: QUOTA_WINDOWS.dayMs / 1000 },
      remaining_minute: total(inRotation.map((v) => v.remaining_minute)),
      remaining_day: total(inRotation.map((v) => v.remaining_day)),
      sets: views,
    });
  }
  return out;
}

export class QuotaError extends Error {}

/**
 * Gives a credential set its own quota: a whole number of calls per minute window and per day, 0
 * for no limit, null to use the vendor's. False when there is no such set.
 */
export async function setCredentialSetQuota(
  db: Db,
  id: number,
  quota: { perMinute: number | null; perDay: number | null },
): Promise<boolean> {
  for (const [name, v] of Object.entries(quota))
    if (v !== null && !(Number.isSafeInteger(v) && v >= 0))
      throw new QuotaError(`${name} must be a whole number of calls (0: no limit) or empty, got ${v}`);
  return setCredentialsQuota(db, id, quota);
}

/** Puts a set the vendor refused back in rotation (after an admin changed or re-tested it). */
export const enableCredentialSet = (db: Db, id: number): Promise<boolean> => enableCredentials(db, id);
