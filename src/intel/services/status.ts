/**
 * What the service holds and runs right now, in Threatr's shapes (Colander's status page reads them):
 * every connector with `configured` as a count of credential sets, workers as objects whose
 * `uptime` is a number of seconds. Loupe's own extras (`usable`, `quota`, `queue`) ride beside them.
 */
import type { Connector } from "../connectors/types.ts";
import { isUsable } from "../domain/fanout.ts";
import { type FreshnessConfig, ttlSeconds } from "../domain/freshness.ts";
import type { Clock, QuotaConfig } from "../domain/quota.ts";
import type { JobQueue } from "../queue/jobs.ts";
import { cachedCounts } from "../store/browse.ts";
import { credentialCounts } from "../store/credentials.ts";
import type { Store } from "../store/db.ts";
import { type VendorQuotaView, vendorQuotas } from "./quotas.ts";

export interface ModuleStatus {
  id: string;
  vendor: string;
  /** Credential sets stored; a connector that needs no key counts as one (it is ready to use). */
  configured: number;
  description: string;
  supported_types: string[];
  credential_fields: string[];
  usable: boolean;
  /** The vendor's limits and the calls left, in all and per credential set. */
  quota: VendorQuotaView;
  /** How long its stored answers stay fresh (the connector's TTL or INTEL_VENDOR_TTL_<ID>). */
  ttl_seconds: number;
}

export interface WorkerStatus {
  id: string;
  /** "Idle" or "Working", django-q's words (Colander colours both green). */
  status: "Idle" | "Working";
  uptime: number;
  enqueued_tasks: number;
  available_results: number;
}

type StatusDeps = {
  store: Store;
  connectors: Connector[];
  config: QuotaConfig & Pick<FreshnessConfig, "vendorTtlSeconds">;
  now?: Clock;
};

export async function moduleStatuses(deps: StatusDeps): Promise<ModuleStatus[]> {
  const counts = await credentialCounts(deps.store.db);
  const quotas = await vendorQuotas(deps);
  return deps.connectors.map((c) => {
    const sets = counts.get(c.id) ?? 0;
    const keyless = c.credentialFields.length === 0;
    const usable = isUsable(c, new Set(sets > 0 ? [c.id] : []));
    return {
      id: c.id,
      vendor: c.vendor,
      configured: keyless ? Math.max(1, sets) : sets,
      description: c.description,
      supported_types: c.supportedTypes.map((t) => `${t.superType}/${t.type}`),
      credential_fields: c.credentialFields,
      usable,
      quota: quotas.get(c.id)!,
      ttl_seconds: ttlSeconds(c, deps.config),
    };
  });
}

/**
 * Workers known from the queue. This process's own worker reports its uptime, whether it is busy
 * and the jobs it finished; a worker of another process is only seen through the lease it holds,
 * so it is "Working" with an uptime of 0 (unknown).
 */
async function workerStatuses(queue: JobQueue, queued: number): Promise<WorkerStatus[]> {
  const me = queue.self();
  return (await queue.workers()).map((id) =>
    me && id === me.id
      ? {
          id,
          status: me.active > 0 ? "Working" : "Idle",
          uptime: Math.max(0, (Date.now() - me.startedAt) / 1000),
          enqueued_tasks: queued,
          available_results: me.finished,
        }
      : { id, status: "Working", uptime: 0, enqueued_tasks: queued, available_results: 0 },
  );
}

export async function serviceStatus(deps: StatusDeps & { queue: JobQueue }) {
  const queue = await deps.queue.depth();
  return {
    ...(await cachedCounts(deps.store.db)),
    available_modules: await moduleStatuses(deps),
    workers: await workerStatuses(deps.queue, queue.queued),
    queue,
  };
}
