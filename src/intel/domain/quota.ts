/**
 * Vendor quotas: which limits apply to a credential set (its own, else INTEL_VENDOR_QUOTA_<ID>,
 * else the connector's free-tier preset), which set a call uses (the one with the most quota
 * left, then the one used longest ago), and a call gate that counts every HTTP attempt against
 * the set's quota in the database, waiting for a slot or giving up per the vendor's policy.
 * Time comes from a clock the caller gives (Date.now in service; tests move their own).
 */
import type { IntelConfig } from "../config.ts";
import type { CallGate, Throttle } from "../connectors/http.ts";
import { type Connector, VendorError } from "../connectors/types.ts";
import type { Credentials } from "../model/credentials.ts";
import { disableCredentials, markCredentialsUsed, setsInRotation } from "../store/credentials.ts";
import type { Store } from "../store/db.ts";
import {
  blockOn,
  blockUntil,
  finishCall,
  type QuotaKey,
  type QuotaLimits,
  type QuotaUsage,
  type QuotaWindows,
  quotaUsage,
  type Reservation,
  reserveCall,
  usageOf,
} from "../store/quotas.ts";

export type QuotaConfig = Pick<
  IntelConfig,
  "quotaPolicy" | "quotaMaxWaitSeconds" | "vendorQuotas" | "vendorUrls"
>;

type Db = Store["db"];

export interface VendorQuota extends QuotaLimits {
  policy: "wait" | "skip";
  /** Where the limits come from: "preset", "setting" or "none". */
  origin: "preset" | "setting" | "none";
}

/** The sliding windows of the per-minute and per-day quotas. */
export const QUOTA_WINDOWS: QuotaWindows = { minuteMs: 60_000, dayMs: 86_400_000 };

/** Milliseconds since the epoch, now (Date.now, or a test's clock). */
export type Clock = () => number;

/**
 * The vendor-wide quota of a connector: the setting when given, else its preset — which describes
 * the vendor's own API, so it does not apply when INTEL_VENDOR_URL_<ID> points the connector
 * elsewhere (a mirror, a test double; a proxy to the vendor sets INTEL_VENDOR_QUOTA_<ID>).
 */
export function vendorQuota(connector: Connector, config: QuotaConfig): VendorQuota {
  const override = config.vendorQuotas[connector.id];
  const policy = override?.policy ?? config.quotaPolicy;
  if (override) return { perMinute: override.perMinute, perDay: override.perDay, policy, origin: "setting" };
  const preset = connector.quota;
  if (!preset || config.vendorUrls[connector.id])
    return { perMinute: null, perDay: null, policy, origin: "none" };
  return { perMinute: preset.perMinute ?? null, perDay: preset.perDay ?? null, policy, origin: "preset" };
}

/** A set's own limit replaces the vendor's: null inherits it, 0 means none. */
export function setLimits(vendor: QuotaLimits, own: { per_minute: number | null; per_day: number | null }) {
  const pick = (mine: number | null, theirs: number | null) =>
    mine === null ? theirs : mine === 0 ? null : mine;
  return { perMinute: pick(own.per_minute, vendor.perMinute), perDay: pick(own.per_day, vendor.perDay) };
}

/** Calls left now under these limits (null: no limit). */
export function remaining(limits: QuotaLimits, usage: QuotaUsage) {
  const left = (limit: number | null, used: number) => (limit === null ? null : Math.max(0, limit - used));
  return { minute: left(limits.perMinute, usage.usedMinute), day: left(limits.perDay, usage.usedDay) };
}

export interface VendorSlot {
  credentials: Credentials;
  /** Counts each HTTP attempt against the set's quota (the first was reserved when the set was taken). */
  gate: CallGate;
  /** The vendor refused this set's key: take it out of rotation (absent for keyless connectors). */
  refused?(reason: string): Promise<void>;
}

interface Candidate {
  id: number;
  credentials: Credentials;
  lastUsedAt: string | null;
  limits: QuotaLimits;
}

/** The sets to try, most quota left first, then least recently used (keyless: one, id 0). */
async function candidateSets(
  db: Db,
  connector: Connector,
  config: QuotaConfig,
  now: Clock,
): Promise<Candidate[]> {
  const vendor = vendorQuota(connector, config);
  const sets =
    connector.credentialFields.length === 0
      ? [{ id: 0, fields: {}, last_used_at: null, per_minute: null, per_day: null }]
      : await setsInRotation(db, connector.id);
  if (sets.length < 2)
    return sets.map((s) => ({
      id: s.id,
      credentials: s.fields,
      lastUsedAt: s.last_used_at,
      limits: setLimits(vendor, s),
    }));
  const usage = await quotaUsage(db, QUOTA_WINDOWS, { vendor: connector.id, at: now() });
  const scored = sets.map((s) => {
    const limits = setLimits(vendor, s);
    const left = remaining(limits, usageOf(usage, { vendor: connector.id, credentialSet: s.id }));
    const score = Math.min(left.minute ?? Number.MAX_SAFE_INTEGER, left.day ?? Number.MAX_SAFE_INTEGER);
    return { candidate: { id: s.id, credentials: s.fields, lastUsedAt: s.last_used_at, limits }, score };
  });
  scored.sort(
    (a, b) =>
      b.score - a.score ||
      (a.candidate.lastUsedAt ?? "").localeCompare(b.candidate.lastUsedAt ?? "") ||
      a.candidate.id - b.candidate.id,
  );
  return scored.map((s) => s.candidate);
}

type Refusal = Extract<Reservation, { ok: false }>;

/**
 * Reserves one call on a set. A set without limits is not counted (nothing to count against: its
 * vendor's calls stay as fast as without quotas); only a vendor's block holds it. Call id 0: none.
 */
async function reserve(
  db: Db,
  key: QuotaKey,
  limits: QuotaLimits,
  holdMs: number,
  at: number,
): Promise<Reservation> {
  if (limits.perMinute === null && limits.perDay === null)
    return (await blockOn(db, key, at)) ?? { ok: true, callId: 0 };
  return reserveCall(db, key, limits, QUOTA_WINDOWS, { holdMs, at });
}

function exhausted(vendor: string, refusal: Refusal): VendorError {
  const why =
    refusal.reason === "blocked"
      ? `the vendor asked to wait (${refusal.detail ?? "Retry-After"})`
      : `the per-${refusal.reason} quota is used up`;
  return new VendorError("quota_exhausted", `${vendor}: ${why}; next call possible at ${refusal.retryAt}`);
}

/**
 * Waits for the refused reservation to be worth trying again, when that can be before the
 * deadline (and the signal holds); false when not. A full minute window is polled: a call in flight
 * counts until its hold ends, though it usually ends much sooner.
 */
async function waitForSlot(
  refusal: Refusal,
  deadline: number,
  now: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const at = Date.parse(refusal.retryAt);
  if (signal?.aborted || now >= deadline) return false;
  if (refusal.reason !== "minute" && !(at <= deadline)) return false;
  const poll = 1000;
  const ms =
    Math.max(0, Math.min(at - now, refusal.reason === "minute" ? poll : Infinity)) + 5 + Math.random() * 20;
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, Math.min(ms, deadline - now));
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
  return !signal?.aborted;
}

/** A full minute window may free a slot any moment (a call in flight ends); else the earlier time. */
const sooner = (a: Refusal, b: Refusal) =>
  (a.reason === "minute") !== (b.reason === "minute") ? a.reason === "minute" : a.retryAt < b.retryAt;

/**
 * Takes a credential set with a call reserved on it, waiting for quota under the wait policy;
 * undefined when the vendor has no set in rotation. Throws VendorError "quota_exhausted" when no
 * slot comes in time.
 */
export async function takeSlot(
  db: Db,
  connector: Connector,
  config: QuotaConfig,
  holdMs: number,
  now: Clock = Date.now,
): Promise<VendorSlot | undefined> {
  const { policy } = vendorQuota(connector, config);
  const maxWaitMs = config.quotaMaxWaitSeconds * 1000;
  const deadline = now() + (policy === "wait" ? maxWaitMs : 0);
  for (;;) {
    const sets = await candidateSets(db, connector, config, now);
    if (sets.length === 0) return undefined;
    let soonest: Refusal | undefined;
    for (const set of sets) {
      const key = { vendor: connector.id, credentialSet: set.id };
      const r = await reserve(db, key, set.limits, holdMs, now());
      if (r.ok) {
        if (set.id > 0) await markCredentialsUsed(db, set.id);
        return slotFor(db, key, set, { vendor: connector.vendor, holdMs, policy, maxWaitMs, now }, r.callId);
      }
      if (!soonest || sooner(r, soonest)) soonest = r;
    }
    if (!soonest || !(await waitForSlot(soonest, deadline, now())))
      throw exhausted(connector.vendor, soonest!);
  }
}

interface GateSettings {
  vendor: string;
  holdMs: number;
  now: Clock;
  policy: "wait" | "skip";
  maxWaitMs: number;
}

function slotFor(
  db: Db,
  key: QuotaKey,
  set: Candidate,
  settings: GateSettings,
  firstCall: number,
): VendorSlot {
  const slot: VendorSlot = {
    credentials: set.credentials,
    gate: callGate(db, key, set.limits, settings, firstCall),
  };
  if (set.id > 0) slot.refused = (reason) => disableCredentials(db, set.id, reason);
  return slot;
}

/** Every attempt after the first reserves one more call on the same set (waiting per policy). */
function callGate(db: Db, key: QuotaKey, limits: QuotaLimits, s: GateSettings, firstCall: number): CallGate {
  let prepaid: number | undefined = firstCall;
  let current: number | undefined;
  return {
    async acquire(signal) {
      if (prepaid !== undefined) {
        [current, prepaid] = [prepaid, undefined];
        return;
      }
      const deadline = s.now() + (s.policy === "wait" ? s.maxWaitMs : 0);
      for (;;) {
        const r = await reserve(db, key, limits, s.holdMs, s.now());
        if (r.ok) {
          current = r.callId;
          return;
        }
        if (!(await waitForSlot(r, deadline, s.now(), signal))) throw exhausted(s.vendor, r);
      }
    },
    async release(throttle?: Throttle) {
      if (current) await finishCall(db, current, QUOTA_WINDOWS, s.now());
      current = undefined;
      if (!throttle) return;
      // A vendor cannot block a set for longer than the day window (a buggy or hostile Retry-After).
      const latest = new Date(s.now() + QUOTA_WINDOWS.dayMs).toISOString();
      await blockUntil(db, key, throttle.until < latest ? throttle.until : latest, throttle.reason);
    },
  };
}
