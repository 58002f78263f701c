/**
 * Webhooks: one URL per API key, called when a request that key asked about (answered 201) or a
 * batch it sent finishes. Each call is a JSON body signed with the webhook's secret
 * (HMAC-SHA256 of `<timestamp>.<body>`, the timestamp in its own header against replay), recorded
 * as a delivery first and retried with exponential backoff by the workers until delivered or out
 * of attempts; the deliveries are the log. Where a call may go: webhook-http.ts.
 */
import { createHmac, randomBytes } from "node:crypto";
import { HttpError } from "../../common/errors.ts";
import type { IntelConfig } from "../config.ts";
import { batchCounts, getBatch } from "../store/batches.ts";
import type { Store } from "../store/db.ts";
import { ACTIVE_STATUSES, getRequest } from "../store/requests.ts";
import type { RequestsTable, WebhookDeliveriesTable } from "../store/schema.ts";
import {
  addDelivery,
  addWatch,
  claimAttempt,
  deleteWebhook,
  deliveryLog,
  dueDeliveries,
  getWebhook,
  putWebhook,
  recordAttempt,
  watchersOf,
  webhookOfKey,
} from "../store/webhooks.ts";
import { checkWebhookUrl, postPinned, RefusedTarget, resolveTarget } from "./webhook-http.ts";

type Services = { store: Store; config: IntelConfig };

/** Deliveries one pass of a worker sends at once. */
const DELIVERY_BATCH = 16;

const policyOf = (config: IntelConfig) => ({ allowPrivate: config.webhookAllowPrivate });

/** HMAC-SHA256 of `<timestamp>.<body>` with the webhook's secret, as the X-Loupe-Signature header carries it. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Sets the key's webhook (its URL checked and resolved now, and again at each call); the secret is shown once. */
export async function setWebhook(services: Services, tokenHash: string, rawUrl: string) {
  const url = checkWebhookUrl(rawUrl);
  try {
    await resolveTarget(url, policyOf(services.config));
  } catch (err) {
    if (err instanceof RefusedTarget) throw new HttpError(400, err.code, err.message);
    throw err;
  }
  const secret = `whsec_${randomBytes(32).toString("hex")}`;
  const row = await putWebhook(services.store.db, { token_hash: tokenHash, url: url.toString(), secret });
  return { id: row.id, url: row.url, secret, created_at: row.created_at };
}

export async function ownWebhook(services: { store: Store }, tokenHash: string) {
  const row = await webhookOfKey(services.store.db, tokenHash);
  return row ? { id: row.id, url: row.url, created_at: row.created_at } : undefined;
}

export const removeWebhook = (services: { store: Store }, tokenHash: string) =>
  deleteWebhook(services.store.db, tokenHash);

/** The delivery log of a key's webhook (or of every webhook when `tokenHash` is undefined: the panel). */
export async function deliveries(services: { store: Store }, tokenHash: string | undefined, limit: number) {
  if (tokenHash === undefined) return deliveryLog(services.store.db, { limit });
  const hook = await webhookOfKey(services.store.db, tokenHash);
  return hook ? deliveryLog(services.store.db, { webhookId: hook.id, limit }) : [];
}

/** The key's webhook waits for this request (a 201 answer); already finished, it is told at once. */
export async function watchRequest(
  services: { store: Store },
  tokenHash: string,
  requestId: string,
): Promise<void> {
  const hook = await webhookOfKey(services.store.db, tokenHash);
  if (!hook) return;
  await addWatch(services.store.db, requestId, hook.id);
  const request = await getRequest(services.store.db, requestId);
  if (request && !ACTIVE_STATUSES.includes(request.status)) await requestFinished(services, request);
}

const requestJson = (r: RequestsTable) => ({
  id: r.id,
  super_type: r.super_type,
  type: r.type,
  value: r.value,
  status: r.status,
  created_at: r.created_at,
  finished_at: r.finished_at,
  location: `/api/request/${r.id}/`,
});

/** Records a delivery to every webhook waiting for this finished request. */
export async function requestFinished(services: { store: Store }, request: RequestsTable): Promise<void> {
  const body = JSON.stringify({ event: "request.finished", request: requestJson(request) });
  for (const hook of await watchersOf(services.store.db, request.id)) {
    await addDelivery(services.store.db, {
      webhookId: hook.id,
      event: "request.finished",
      targetId: request.id,
      body,
    });
  }
}

/** Records a delivery to the webhook of the key that sent this (finished) batch. */
export async function batchFinished(services: { store: Store }, batchId: string): Promise<void> {
  const { db } = services.store;
  const batch = await getBatch(db, batchId);
  const hook = batch ? await webhookOfKey(db, batch.token_hash) : undefined;
  if (!batch || !hook) return;
  const counts = await batchCounts(db, batchId);
  const body = JSON.stringify({
    event: "batch.finished",
    batch: {
      id: batch.id,
      total: batch.total,
      accepted: Object.values(counts).reduce((a, b) => a + b, 0),
      rejected: (JSON.parse(batch.rejected) as unknown[]).length,
      counts,
      created_at: batch.created_at,
      finished_at: batch.finished_at,
      location: `/api/batches/${batch.id}/`,
    },
  });
  await addDelivery(db, { webhookId: hook.id, event: "batch.finished", targetId: batch.id, body });
}

/** Sends the deliveries due now (each claimed by one sender); how many were attempted. */
export async function sendDueDeliveries(services: Services): Promise<number> {
  const due = await dueDeliveries(services.store.db, DELIVERY_BATCH);
  const attempts = due.map((d) => attemptDelivery(services, d));
  return (await Promise.all(attempts)).filter(Boolean).length;
}

async function attemptDelivery(services: Services, d: WebhookDeliveriesTable): Promise<boolean> {
  const { db } = services.store;
  const { config } = services;
  // Held past the call's time limit: a sender that dies mid-call leaves it due again.
  if (!(await claimAttempt(db, d, config.webhookTimeoutMs * 2 + 1000))) return false;
  const attempt = d.attempts + 1;
  const hook = await getWebhook(db, d.webhook_id);
  if (!hook) {
    await recordAttempt(db, d.id, { status: "failed", httpStatus: null, error: "the webhook was removed" });
    return true;
  }
  const outcome = await call(services, hook.url, hook.secret, d);
  if (outcome.error === null) {
    await recordAttempt(db, d.id, { status: "delivered", ...outcome });
    return true;
  }
  const wait = Math.min(config.webhookRetryMaxMs, config.webhookRetryBaseMs * 2 ** (attempt - 1));
  const last = attempt >= config.webhookMaxAttempts;
  await recordAttempt(db, d.id, {
    status: last ? "failed" : "pending",
    ...outcome,
    retryAt: last ? undefined : new Date(Date.now() + wait).toISOString(),
  });
  return true;
}

/** One signed call; the target is checked again now and the connection pinned to the checked address. */
async function call(services: Services, rawUrl: string, secret: string, d: WebhookDeliveriesTable) {
  const url = new URL(rawUrl);
  let address: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    address = await resolveTarget(url, policyOf(services.config));
  } catch (err) {
    return { httpStatus: null, error: err instanceof Error ? err.message : String(err) };
  }
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers = {
    "x-loupe-event": d.event,
    "x-loupe-delivery": d.id,
    "x-loupe-timestamp": timestamp,
    "x-loupe-signature": signature(secret, timestamp, d.body),
  };
  return postPinned(url, address, d.body, headers, services.config.webhookTimeoutMs);
}

/** Sends due deliveries every INTEL_WEBHOOK_POLL_MS in this process; returns the stop function. */
export function startDeliveries(services: Services, onError: (err: unknown) => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      // A full pass may mean more are due: go again at once.
      while (!stopped && (await sendDueDeliveries(services)) >= DELIVERY_BATCH);
    } catch (err) {
      onError(err);
    }
    if (!stopped) timer = setTimeout(tick, services.config.webhookPollMs);
  };
  timer = setTimeout(tick, 0);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
